"""transport.http: where --http may listen, the bearer check, the Host/Origin door, the connection cap."""

from __future__ import annotations

import asyncio

import pytest

from docs_mcp import http_settings as H
from docs_mcp.errors import InvalidArgument
from docs_mcp.transport.connections import limits_for
from docs_mcp.transport.door import Door, FrontDoor, allowed_names, door_for
from docs_mcp.transport.http import BearerAuth, check_bind, is_loopback, parse_bind

TOKEN = "a-token-of-twenty-chars"


@pytest.mark.parametrize(
    ("text", "bind"),
    [
        ("8000", ("127.0.0.1", 8000)),
        ("0", ("127.0.0.1", 0)),
        ("localhost:8000", ("localhost", 8000)),
        ("0.0.0.0:80", ("0.0.0.0", 80)),
        ("[::1]:9000", ("::1", 9000)),
        (":8000", ("127.0.0.1", 8000)),
    ],
)
def test_parse_bind_reads_port_host_and_bracketed_ipv6(text, bind):
    assert parse_bind(text) == bind


@pytest.mark.parametrize("text", ["::1:8000", "host:port", "70000", "[::1]8000", ""])
def test_parse_bind_refuses_what_it_cannot_read(text):
    with pytest.raises(InvalidArgument, match="--http"):
        parse_bind(text)


def test_loopback_is_localhost_127_slash_8_and_ipv6_one():
    assert all(map(is_loopback, ["localhost", "127.0.0.1", "127.9.9.9", "::1"]))
    assert not any(map(is_loopback, ["0.0.0.0", "::", "192.168.1.2", "docs.internal", "localhost.example"]))


def test_loopback_needs_no_token_and_remote_needs_both_flag_and_token():
    assert check_bind("8000", False, None).token is None
    assert check_bind("0.0.0.0:8000", True, TOKEN).token == TOKEN
    with pytest.raises(InvalidArgument, match="--allow-remote"):
        check_bind("0.0.0.0:8000", False, TOKEN)
    with pytest.raises(InvalidArgument, match="needs a bearer token"):
        check_bind("0.0.0.0:8000", True, None)
    with pytest.raises(InvalidArgument, match="at least 16"):
        check_bind("8000", False, "short")


def asgi_call(app, headers: list[tuple[bytes, bytes]]) -> tuple[int, list]:
    """One HTTP request through an ASGI app; returns the status and the messages sent."""
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    asyncio.run(app({"type": "http", "method": "POST", "path": "/mcp", "headers": headers}, receive, send))
    return sent[0]["status"], sent


async def _ok(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.mark.parametrize(
    ("header", "status"),
    [
        (None, 401),
        (b"Bearer " + TOKEN.encode(), 200),
        (b"bearer " + TOKEN.encode(), 200),  # the scheme is case-insensitive (RFC 7235)
        (b"Bearer " + TOKEN.encode()[:-1], 401),
        (b"Bearer " + TOKEN.encode() + b"x", 401),
        (b"Basic " + TOKEN.encode(), 401),
        (TOKEN.encode(), 401),
    ],
)
def test_bearer_auth_lets_only_the_token_through(header, status):
    headers = [(b"authorization", header)] if header is not None else []
    got, sent = asgi_call(BearerAuth(_ok, TOKEN), headers)
    assert got == status
    if status == 401:
        assert (b"www-authenticate", b'Bearer realm="docslice"') in sent[0]["headers"]


def test_bearer_auth_passes_lifespan_events_through():
    seen = []

    async def app(scope, receive, send):
        seen.append(scope["type"])

    asyncio.run(BearerAuth(app, TOKEN)({"type": "lifespan"}, None, None))
    assert seen == ["lifespan"]


def door(bound: str = "127.0.0.2", port: int = 8000, *names: str) -> Door:
    return door_for(bound, port, allowed_names(names))


@pytest.mark.parametrize(
    ("host", "origin", "status"),
    [
        ("127.0.0.2:8000", None, None),
        ("localhost:8000", "http://localhost:8000", None),
        ("LOCALHOST:8000", "http://LocalHost:8000", None),
        ("127.0.0.2:8000", "http://127.0.0.2:8000", None),
        (None, None, 421),
        ("127.0.0.2", None, 421),  # port 80
        ("127.0.0.1:8000", None, 421),  # another loopback address: not where this server listens
        ("rebind.example:8000", "http://127.0.0.2:8000", 421),
        ("127.0.0.2:8000:8000", None, 421),
        ("127.0.0.2:99999", None, 421),
        ("127.0.0.2:8000", "http://127.0.0.2:8000.rebind.example", 403),
        ("127.0.0.2:8000", "http://127.0.0.2:80001", 403),
        ("127.0.0.2:8000", "https://127.0.0.2:8000", 403),
        ("127.0.0.2:8000", "http://127.0.0.2", 403),
        ("127.0.0.2:8000", "http://127.0.0.2:8000/", 403),
        ("127.0.0.2:8000", "HTTP://127.0.0.2:8000", 403),
        ("127.0.0.2:8000", "null", 403),
        ("127.0.0.2:8000", "file://", 403),
    ],
)
def test_the_door_takes_only_the_address_served_on_and_localhost(host, origin, status):
    refused = door().refusal(host, origin)
    assert (refused[0] if refused else None) == status
    if refused:
        assert "\n" not in refused[1] and "127.0.0.2:8000" in refused[1] and "localhost:8000" in refused[1]


def test_any_spelling_of_ipv6_loopback_is_the_same_address():
    d = door("::1", 9000)
    for host in ("[::1]:9000", "[0:0:0:0:0:0:0:1]:9000", "[0000::0001]:9000", "localhost:9000"):
        assert d.refusal(host, f"http://{host}") is None, host
    for host in ("[::2]:9000", "::1:9000", "[::1]:9001", "[::ffff:127.0.0.1]:9000"):
        assert d.refusal(host, None)[0] == 421, host


def test_a_wildcard_bind_takes_ip_literals_and_allowed_names_but_no_other_name():
    d = door("0.0.0.0", 8000, "docs.example.com", "proxy.example.com:8443")
    assert d.refusal("192.0.2.7:8000", "http://192.0.2.7:8000") is None
    assert d.refusal("docs.example.com", "https://docs.example.com") is None
    assert d.refusal("docs.example.com:8000", "http://docs.example.com:8000") is None
    assert d.refusal("proxy.example.com:8443", "https://proxy.example.com:8443") is None
    assert d.refusal("localhost:8000", None)[0] == 421  # not a loopback bind: localhost is a name like others
    assert d.refusal("proxy.example.com", None)[0] == 421
    assert d.refusal("docs.example.com.evil", None)[0] == 421
    assert d.refusal("docs.example.com", "https://docs.example.com.evil")[0] == 403


@pytest.mark.parametrize("text", ["http://docs.example.com", "docs.example.com/mcp", "a b", "", "[nope]:80"])
def test_an_allowed_host_that_is_not_a_host_is_refused_at_start(text):
    with pytest.raises(InvalidArgument, match="--allowed-host"):
        allowed_names([text])


def test_two_host_headers_are_refused():
    got, sent = asgi_call(
        FrontDoor(_ok, door()), [(b"host", b"127.0.0.2:8000"), (b"host", b"rebind.example:8000")]
    )
    assert got == 400 and b"more than one Host" in sent[1]["body"]


def test_two_authorization_headers_are_refused_whichever_holds_the_token():
    token = "t" * 20
    app = FrontDoor(BearerAuth(_ok, token), door())
    for pair in (
        (b"Bearer wrong", f"Bearer {token}".encode()),
        (f"Bearer {token}".encode(), b"Bearer wrong"),
    ):
        headers = [(b"host", b"127.0.0.2:8000"), *((b"authorization", v) for v in pair)]
        got, sent = asgi_call(app, headers)
        assert got == 400 and b"more than one Authorization" in sent[1]["body"]
    assert (
        asgi_call(app, [(b"host", b"127.0.0.2:8000"), (b"authorization", f"Bearer {token}".encode())])[0]
        == 200
    )


def test_connections_fit_in_the_open_file_limit_with_room_kept():
    assert limits_for(1024).max_connections == 1024 - H.HTTP_FILE_RESERVE - 2 * H.HTTP_BACKLOG
    assert limits_for(100).max_connections == H.HTTP_MIN_CONNECTIONS
    assert limits_for(10**7).max_connections == H.HTTP_MAX_CONNECTIONS


@pytest.mark.parametrize("bound", ["10.0.0.5", "0.0.0.0", "fd00::5", "127.0.0.1"])
def test_a_refusal_behind_a_proxy_names_no_address_or_port_of_the_network_inside(bound):
    # Behind a proxy (even one on this host: a loopback replica with --allowed-host) the refusal reaches
    # whoever asked: it must not tell them where the replica listens.
    d = door(bound, 8123, "docs.example.com")
    for refused in (d.refusal("evil.example", None), d.refusal("docs.example.com", "https://evil.example")):
        assert refused is not None and "--allowed-host" in refused[1]
        assert bound not in refused[1] and "8123" not in refused[1], refused


def test_a_refusal_beyond_loopback_names_no_address_even_without_allowed_names():
    refused = door("10.0.0.5", 8123).refusal("evil.example", None)
    assert refused is not None and "10.0.0.5" not in refused[1] and "8123" not in refused[1]


def test_the_ready_gate_asks_the_index_once_per_verdict_and_lets_calls_through_once_it_answers():
    from docs_mcp.transport.replica import ReadyGate

    state = {"why": "cannot use the index at db.internal: password authentication failed", "asked": 0}

    def unusable() -> str:
        state["asked"] += 1
        return state["why"]

    gate = ReadyGate(_ok, unusable, "/mcp")

    async def statuses(n: int) -> list[int]:
        out = []
        for _ in range(n):
            sent = []

            async def receive():
                return {"type": "http.request", "body": b"", "more_body": False}

            async def send(message, sent=sent):
                sent.append(message)

            await gate({"type": "http", "method": "POST", "path": "/mcp", "headers": []}, receive, send)
            out.append(sent[0]["status"])
            if sent[0]["status"] == 503:
                assert b"password authentication failed" in sent[1]["body"]
        return out

    async def run() -> None:
        assert await statuses(5) == [503] * 5 and state["asked"] == 1  # one check serves the calls after it
        state["why"] = ""
        gate._verdict = None  # the verdict's second is over (no sleep in a unit test)
        assert await statuses(3) == [200] * 3 and state["asked"] == 2

    asyncio.run(run())
