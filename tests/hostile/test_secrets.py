"""Passwords in an index address are never printed (issue 34 item 4, issue 43 item 4): every form libpq reads
(URIs with any character in the password, encoded or not; key=value with quotes and escapes; sslpassword; a
passfile), read by libpq's own parser; an address it cannot read as written is one line, never a traceback.
Checked in the address as shown, psycopg's own message, `search` and `index`, and a server's tool error,
WARNING lines and /readyz."""

from __future__ import annotations

import asyncio
import concurrent.futures
import http.client
import json
import logging
import re
import time
from pathlib import Path

import pytest
from conftest import SITE

from .front_door import Served

psycopg = pytest.importorskip("psycopg")

from docs_mcp.errors import IndexUnavailable  # noqa: E402
from docs_mcp.store.postgres.address import Address  # noqa: E402

#: Two pieces no message holds by chance; every secret below is made of both (nothing listens on port 9 of
#: loopback, so each address is refused fast).
A, B = "Qzv7", "Kw9x"
U = "postgresql://docs:{}@127.0.0.1:9/db"
K = "host=127.0.0.1 port=9 dbname=db user=docs "
#: (address, whether libpq reads it as written): every form of a password, and addresses refused whole.
FORMS = [
    (U.format(f"{A}-{B}"), True),
    (f"postgres://docs:{A}-{B}@127.0.0.1:9/db", True),
    (U.format(f"{A}/{B}"), False),  # '/' unencoded: libpq would read Qzv7 as the port
    (U.format(f"{A}%2F{B}"), True),
    (U.format(f"{A}@{B}"), False),  # '@' unencoded: libpq would read Kw9x@127.0.0.1 as the host
    (U.format(f"{A}%40{B}"), True),
    (U.format(f"{A}%zz{B}"), False),  # psycopg raised 'invalid percent-encoded token'
    (U.format(f"{A}{B}%"), False),
    (U.format(f"{A}%25{B}"), True),
    (U.format(f"{A}%41{B}"), True),  # %41 is 'A': libpq's password is Qzv7AKw9x
    (U.format(f"{A}?{B}"), True),
    (U.format(f"{A}#{B}"), True),
    (U.format(f"{A}:{B}"), True),
    (U.format(f"{A} {B}"), False),  # libpq refuses a space in a URI
    (U.format(f"{A}%20{B}"), True),
    (U.format(f"{A}&x={B}"), True),
    (U.format(f"{A}'\"\\{B}"), True),
    (U.format(f"{A}é中{B}"), True),
    (U.format(f"{A}/x?{B}"), False),  # '/' then '?': libpq reads a query without '='
    (f"postgresql://docs@127.0.0.1:9/db?password={A}-{B}", True),
    (f"postgresql://docs@127.0.0.1:9/db?sslmode=disable&password={A}@{B}&connect_timeout=2", True),
    (f"postgresql://docs@127.0.0.1:9/db?password={A}%26{B}", True),
    (f"postgresql://docs@127.0.0.1:9/db?password={A}/{B}", True),
    (f"postgresql://docs:{A}-1@127.0.0.1:9/db?password={B}-2", True),  # libpq keeps the last
    (f"postgresql://docs@127.0.0.1:9/db?sslpassword={A}-{B}", True),
    (f"postgresql://docs:{A}-{B}@127.0.0.1:9,127.0.0.2:9/db", True),
    (f"postgresql://docs:{A}-{B}@[::1]:9/db", True),
    (f"postgresql://docs:{A}-{B}@/db?host=/nonexistent&port=9", True),
    (f"postgresql://docs:{A}-{B}@127.0.0.1:9/db?application_name=me@work", False),  # an '@' to encode
    (K + f"password={A}-{B}", True),
    (K + f"password='{A} {B}'", True),
    (K + f"password={A}\\ {B}", True),  # a backslash-escaped space (was shown as 'password=*** Kw9x')
    (K + f"password='{A}\\'{B}'", True),
    (K + f"password = {A}{B}", True),
    (K + f"password={A}%zz{B}", True),  # '%' is plain text in key=value
    (K + f"password={A}@/{B}", True),
    (K + f"sslpassword={A}-{B} password=x", True),  # sslpassword was never masked
    (K + f"password={A}-{B} password=other", True),
    (K + f"password='{A}-{B}", False),  # an unterminated quote
    (K + f"password {A}-{B}", False),  # no '='
]
PASSFILE_LINE = f"127.0.0.1:9:db:docs:{A}-{B}\n"


def leaks(text: str) -> list[str]:
    return [p for p in (A, B) if p in text]


def forms(passfile: Path) -> list[tuple[str, bool]]:
    """FORMS, and one reading its password from a passfile (whose contents no message may hold)."""
    passfile.write_text(PASSFILE_LINE)
    passfile.chmod(0o600)
    return [*FORMS, (K + f"passfile={passfile}", True)]


def test_there_are_at_least_30_forms():
    assert len(FORMS) >= 30 and len({f for f, _ in FORMS}) == len(FORMS)


@pytest.mark.parametrize(("url", "readable"), FORMS, ids=range(len(FORMS)))
def test_every_form_is_shown_masked_or_refused_in_one_line(url, readable):
    if not readable:
        with pytest.raises(IndexUnavailable) as refused:
            Address.parse(url)
        said = str(refused.value)
        assert "\n" not in said and leaks(said) == [] and "percent-encoded" in said, said
        return
    address = Address.parse(url)
    assert leaks(address.shown) == [] and "***" in address.shown, address.shown
    assert "127.0.0.1" in address.shown or "::1" in address.shown or "/nonexistent" in address.shown
    with pytest.raises(psycopg.Error) as caught:
        psycopg.connect(url, connect_timeout=2)
    assert leaks(address.scrub(str(caught.value))) == [], str(caught.value)


def test_an_address_without_a_password_is_shown_as_it_reads():
    assert (
        Address.parse("postgresql://docs@db.example:5432/docs").shown
        == "postgresql://docs@db.example:5432/docs"
    )
    assert Address.parse("host=db.example dbname=docs").shown == "dbname=docs host=db.example"


def _run(argv: list[str], capsys) -> str:
    from docs_mcp.cli.main import main

    with pytest.raises(SystemExit):
        main(argv)
    out, err = capsys.readouterr()
    return out + err


@pytest.mark.slow
def test_search_and_index_never_print_a_password(tmp_path, capsys, caplog):
    """In-process: every form through `search` and `index` (a traceback would fail the run, not print)."""
    caplog.set_level(logging.WARNING)
    for url, readable in forms(tmp_path / "pgpass"):
        for command in (["search", "tide tables"], ["index"]):
            said = _run(
                ["--source", str(SITE), "--cache-dir", str(tmp_path), "--index-url", url, *command], capsys
            )
            expected = "cannot use the index at" if readable else "cannot use the index: its address"
            assert expected in said and leaks(said) == [], (url, command, said[-600:])
    assert leaks(caplog.text) == []


async def _served(url: str, tmp_path: Path) -> str:
    """What a server on `url` says: the search tool's error, then /readyz's reason (after the search tripped
    the store's breaker), through the app `serve --http` runs (Health in front of all)."""
    import httpx
    from mcp import Client

    from docs_mcp.cli.app import App
    from docs_mcp.cli.arguments import parse
    from docs_mcp.transport.http import Bind, Serving, build_app, listen
    from docs_mcp.transport.server import build_server

    argv = ["serve", "--source", str(SITE), "--cache-dir", str(tmp_path), "--index-url", url, "--no-index"]
    app = await asyncio.to_thread(App, parse(argv))
    server = build_server(app.tools)
    async with Client(server, mode="legacy") as client:
        result = await client.call_tool("search_docs", {"query": "tide tables"})
    said = json.dumps([c.model_dump() for c in result.content])
    bind = Bind("127.0.0.1", 0)
    sock = listen(bind)
    try:
        web = build_app(server, bind, sock, serving=Serving(ready=app.readiness))
        host = f"127.0.0.1:{sock.getsockname()[1]}"
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=web), base_url=f"http://{host}"
        ) as http:
            ready = await http.get("/readyz", headers={"host": host})
    finally:
        sock.close()
    assert ready.status_code == 503 and "index" in ready.json()["reason"], ready.text
    await app.tools.aclose()
    return said + ready.text


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_a_servers_tool_error_warnings_and_readyz_never_hold_a_password(tmp_path, caplog):
    """Every form at once (each search waits for the store's connection timeout)."""
    caplog.set_level(logging.WARNING)
    urls = forms(tmp_path / "pgpass")

    async def all_forms() -> list[str]:
        asyncio.get_running_loop().set_default_executor(concurrent.futures.ThreadPoolExecutor(64))
        return await asyncio.gather(*(_served(url, tmp_path) for url, _ in urls))

    for (url, _), said in zip(urls, asyncio.run(all_forms()), strict=True):
        assert "index" in said and leaks(said) == [], (url, said[-600:])
    assert "index" in caplog.text and leaks(caplog.text) == [], caplog.text[-2000:]


def get(served: Served, path: str, **headers: str) -> tuple[int, dict]:
    conn = http.client.HTTPConnection(served.host, served.port, timeout=30)
    try:
        conn.request("GET", path, headers={"Host": f"{served.host}:{served.port}", **headers})
        res = conn.getresponse()
        return res.status, json.loads(res.read() or b"{}")
    finally:
        conn.close()


@pytest.mark.slow
def test_readyz_is_behind_the_host_check_and_tells_its_reason_only_with_the_token(tmp_path):
    token = "readyz-token-0123456789abcdef"
    url = U.format(f"{A}%2F{B}")
    served = Served(
        "127.0.0.1:0",
        "--source",
        str(SITE),
        "--cache-dir",
        str(tmp_path),
        "--index-url",
        url,
        env={"DOCS_MCP_TOKEN": token},
    )
    try:
        status, body = get(served, "/readyz", Host="evil.example")
        assert status == 421 and leaks(json.dumps(body)) == []
        status, body = get(served, "/readyz")
        assert status == 503 and "127.0.0.1:9" not in body["reason"] and "token" in body["reason"]
        # The first checks may only say the store did not answer in time (/readyz answers within 2 s); once the
        # store's own wait ends, its breaker gives the reason at once.
        deadline = time.monotonic() + 15
        while True:
            status, body = get(served, "/readyz", Authorization=f"Bearer {token}")
            if "cannot use the index at" in body["reason"] or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert status == 503 and "cannot use the index at" in body["reason"], body
        assert leaks(body["reason"]) == [] and re.search(r"docs:\*\*\*@127\.0\.0\.1:9/db", body["reason"])
        assert get(served, "/healthz", Host="evil.example")[0] == 200  # liveness says nothing
        assert leaks("".join(served.stderr())) == []
    finally:
        served.stop()
