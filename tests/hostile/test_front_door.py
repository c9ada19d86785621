"""The HTTP front door under attack: DNS rebinding and forged Origins on every spelling of loopback, slowloris
against a server with 1,024 open files, abandoned sessions, and the token kept off the command line."""

from __future__ import annotations

import json
import resource
import socket
import statistics
import time
from collections.abc import Iterator

import pytest
from conftest import SITE

from docs_mcp import http_settings as H

from .front_door import (
    Served,
    Stallers,
    abandon_sessions,
    post,
    raise_own_file_limit,
    time_to_serve,
)

TOKEN = "front-door-token-0123456789"
#: Every way of writing a loopback address a user might pass to --http.
SPELLINGS = ["127.0.0.1", "127.0.0.2", "127.3.4.5", "[::1]", "[0:0:0:0:0:0:0:1]", "localhost"]


def serve(bind: str, tmp_path_factory, *args: str, **kw) -> Served:
    cache = tmp_path_factory.mktemp("front-door")
    return Served(bind, "--source", str(SITE), "--cache-dir", str(cache), *args, **kw)


@pytest.fixture(scope="module", params=SPELLINGS)
def loopback(request, tmp_path_factory) -> Iterator[Served]:
    served = serve(f"{request.param}:0", tmp_path_factory)
    yield served
    served.stop()


def own(served: Served) -> str:
    """The Host a client that typed the server's address sends: the address as written to --http."""
    return f"[{served.host}]:{served.port}" if ":" in served.host else f"{served.host}:{served.port}"


def refused(status: int, body: str, expected: int) -> str:
    """The reason of a refusal, after checking it is one line of JSON-RPC error and no session was opened."""
    assert status == expected, (status, body[:300])
    assert "\n" not in body.strip()
    message = json.loads(body)["error"]["message"]
    assert message.startswith("refused: ")
    return message


def test_a_request_naming_the_server_is_served_on_every_loopback_spelling(loopback):
    host = own(loopback)
    for headers in (
        {"Host": host},
        {"Host": f"localhost:{loopback.port}"},
        {"Host": host, "Origin": f"http://{host}"},
        {"Host": f"localhost:{loopback.port}", "Origin": f"http://localhost:{loopback.port}"},
    ):
        status, body, got = post(loopback.host, loopback.port, **headers)
        assert status == 200 and '"serverInfo"' in body, (headers, status, body[:200])
        assert got.get("mcp-session-id")


def test_a_rebound_host_name_is_refused_with_421_on_every_loopback_spelling(loopback):
    port = loopback.port
    other_loopback = "127.0.0.9" if loopback.host != "127.0.0.9" else "127.0.0.8"
    for host in (
        f"rebind.example:{port}",
        "rebind.example",
        f"{loopback.host}.rebind.example:{port}",
        f"localhost.rebind.example:{port}",
        f"{own(loopback).rsplit(':', 1)[0]}:{port + 1}",  # the right address, another port
        f"{other_loopback}:{port}",
        f"[::2]:{port}",
        f"{own(loopback)}@rebind.example",
    ):
        status, body, got = post(loopback.host, loopback.port, Host=host)
        assert "is not this server" in refused(status, body, 421), host
        assert "mcp-session-id" not in got


def test_a_foreign_or_prefix_matched_origin_is_refused_with_403_on_every_loopback_spelling(loopback):
    host, port = own(loopback), loopback.port
    for origin in (
        f"http://{host}.rebind.example",  # the case: the server's origin as a prefix
        f"http://{host}0",
        f"http://rebind.example:{port}",
        f"https://{host}",
        f"http://{host.rsplit(':', 1)[0]}:{port + 1}",
        f"http://{host}/",
        f"http://user@{host}",
        "null",
        "",
    ):
        status, body, got = post(loopback.host, port, Host=host, Origin=origin)
        assert "Origin" in refused(status, body, 403), origin
        assert "mcp-session-id" not in got


def test_allowed_host_names_are_served_and_nothing_else(tmp_path_factory):
    served = serve(
        "127.0.0.4:0",
        tmp_path_factory,
        "--allowed-host",
        "docs.example.test",
        "--allowed-host",
        "Proxy.Example.Test:8443",
    )
    try:
        ok = [
            {"Host": "docs.example.test"},
            {"Host": "DOCS.example.test:443", "Origin": "https://docs.example.test"},
            {"Host": "proxy.example.test:8443", "Origin": "https://proxy.example.test:8443"},
            {"Host": f"127.0.0.4:{served.port}"},
        ]
        for headers in ok:
            status, body, _ = post(served.host, served.port, **headers)
            assert status == 200, (headers, body[:200])
        for headers, expected in (
            ({"Host": "proxy.example.test:8444"}, 421),
            ({"Host": "docs.example.test.rebind.example"}, 421),
            ({"Host": "docs.example.test", "Origin": "https://docs.example.test.rebind.example"}, 403),
            ({"Host": "proxy.example.test:8443", "Origin": "https://proxy.example.test"}, 403),
        ):
            status, body, _ = post(served.host, served.port, **headers)
            refused(status, body, expected)
    finally:
        served.stop()


def test_a_connection_that_does_not_finish_its_headers_is_closed_after_the_header_timeout(tmp_path_factory):
    served = serve("127.0.0.1:0", tmp_path_factory)
    try:
        silent = socket.create_connection((served.host, served.port), timeout=30)
        trickle = socket.create_connection((served.host, served.port), timeout=0.25)
        start = time.monotonic()
        closed_after = None
        # A byte of headers every 0.25 s, for 4x the timeout at most: the server must close it well before.
        for i in range(int(H.HTTP_HEADER_TIMEOUT * 16)):
            try:
                trickle.send(Stallers.LINE[i : i + 1] or b"a")
                if trickle.recv(1) == b"":
                    closed_after = time.monotonic() - start
                    break
            except TimeoutError:
                continue
            except OSError:
                closed_after = time.monotonic() - start
                break
        silent.settimeout(5)
        assert silent.recv(1) == b""  # the connection that sent nothing is closed too
        assert closed_after is not None
        assert H.HTTP_HEADER_TIMEOUT - 0.5 <= closed_after <= H.HTTP_HEADER_TIMEOUT + 3
        assert time_to_serve(served.host, served.port) < 5
    finally:
        served.stop()


def test_a_new_client_is_served_under_1500_stalled_connections_with_1024_open_files(tmp_path_factory):
    if not raise_own_file_limit(2_000):
        pytest.skip("this process may not open the 1,500 sockets the attack needs")
    served = serve("127.0.0.1:0", tmp_path_factory, files=(1024, 1024))
    stallers = Stallers(served.host, served.port, 1_500, seconds=90)
    try:
        deadline = time.monotonic() + 60
        while not stallers.ready and time.monotonic() < deadline:
            time.sleep(0.2)
        assert stallers.ready, f"only {len(stallers.socks)} stalled connections opened"
        times = []
        for _ in range(5):  # new clients while the stalled connections are kept at 1,500
            times.append(time_to_serve(served.host, served.port, timeout=30))
            time.sleep(0.5)
        assert max(times) < 5, times
        assert stallers.reopened > 0  # the server closed stalled connections to make room
        errors = "".join(served.stderr())
        assert "Too many open files" not in errors and "Traceback" not in errors, errors[-2000:]
        print(f"\nnew client under 1,500 stalled connections: median {statistics.median(times):.3f} s")
    finally:
        stallers.stop()
        served.stop()


def test_the_soft_open_file_limit_is_raised_to_the_hard_one_at_start(tmp_path_factory):
    if not raise_own_file_limit(1024) or resource.getrlimit(resource.RLIMIT_NOFILE)[1] < 4096:
        pytest.skip("this process's hard open-file limit is under 4,096")
    served = serve("127.0.0.1:0", tmp_path_factory, files=(1024, 4096))
    try:
        assert served.open_files_limit() == (4096, 4096)
    finally:
        served.stop()


@pytest.mark.slow
@pytest.mark.long  # `pytest -m long` (and CI) runs it; the README's pytest leaves it out
@pytest.mark.timeout(400)  # 10,000 sessions opened one by one: about 2 minutes on 2 cores
def test_ten_thousand_abandoned_sessions_leave_room_for_a_new_client(tmp_path_factory):
    served = serve("127.0.0.1:0", tmp_path_factory)
    try:
        time_to_serve(served.host, served.port)  # warm: imports, first session
        before = served.rss_mb()
        start = time.monotonic()
        statuses = abandon_sessions(served.host, served.port, 10_000)
        took = time.monotonic() - start
        assert statuses == {200: 10_000}
        seconds = time_to_serve(served.host, served.port)
        assert seconds < 5
        growth = served.rss_mb() - before
        assert growth < 100, f"memory grew {growth:.0f} MB for {H.HTTP_MAX_SESSIONS} live sessions at most"
        print(f"\n10,000 abandoned sessions in {took:.0f} s; new client {seconds:.3f} s; +{growth:.0f} MB")
    finally:
        served.stop()


def test_the_token_file_keeps_the_token_off_the_command_line(tmp_path, tmp_path_factory):
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n")
    path.chmod(0o600)
    served = serve("127.0.0.1:0", tmp_path_factory, "--token-file", str(path))
    try:
        assert "bearer token required" in served.announcement
        cmdline = open(f"/proc/{served.proc.pid}/cmdline", "rb").read()  # noqa: SIM115
        assert TOKEN.encode() not in cmdline
        assert post(served.host, served.port)[0] == 401
        status, body, _ = post(served.host, served.port, Authorization=f"Bearer {TOKEN}")
        assert status == 200 and '"serverInfo"' in body
        assert not [line for line in served.stderr() if "warning" in line]
    finally:
        served.stop()


def test_a_token_on_the_command_line_still_works_with_a_one_line_warning(tmp_path_factory):
    served = serve("127.0.0.1:0", tmp_path_factory, "--token", TOKEN)
    try:
        status, _, _ = post(served.host, served.port, Authorization=f"Bearer {TOKEN}")
        assert status == 200
        time.sleep(0.2)
        warnings = [line for line in served.stderr() if "warning" in line]
        assert len(warnings) == 1 and "visible to every local user" in warnings[0]
        assert "--token-file" in warnings[0] and TOKEN not in warnings[0]
    finally:
        served.stop()


def test_a_token_file_others_can_read_is_served_with_a_warning(tmp_path, tmp_path_factory):
    path = tmp_path / "token"
    path.write_text(TOKEN)
    path.chmod(0o644)
    served = serve("127.0.0.1:0", tmp_path_factory, "--token-file", str(path))
    try:
        assert post(served.host, served.port, Authorization=f"Bearer {TOKEN}")[0] == 200
        warnings = [line for line in served.stderr() if "warning" in line]
        assert len(warnings) == 1 and "chmod 600" in warnings[0] and TOKEN not in warnings[0]
    finally:
        served.stop()


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (None, "cannot read it"),
        ("", "alone on the file's first line"),
        ("\n\n", "alone on the file's first line"),
        (TOKEN + "\nsecond line", "alone on the file's first line"),
        ("short", "at least 16"),
    ],
)
def test_a_token_file_that_cannot_serve_stops_the_server_with_a_reason(tmp_path, capsys, content, says):
    from docs_mcp.cli.main import main

    path = tmp_path / "token"
    if content is not None:
        path.write_text(content)
        path.chmod(0o600)
    with pytest.raises(SystemExit) as exc:
        main(["serve", "--http", "0", "--token-file", str(path), "--source", str(SITE)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1


def test_token_and_token_file_together_are_refused(tmp_path, capsys):
    from docs_mcp.cli.main import main

    path = tmp_path / "token"
    path.write_text(TOKEN)
    for argv, says in (
        (["--http", "0", "--token", TOKEN, "--token-file", str(path)], "not both"),
        (["--token-file", str(path)], "--http only"),
        (["--allowed-host", "docs.example.test"], "--http only"),
        (["--http", "0", "--allowed-host", "http://docs.example.test/"], "--allowed-host"),
    ):
        with pytest.raises(SystemExit) as exc:
            main(["serve", *argv, "--source", str(SITE)])
        assert exc.value.code == 2, argv
        assert says in capsys.readouterr().err, argv
