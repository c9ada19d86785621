"""http_transport: where --http may listen, and the bearer check every request passes through."""

from __future__ import annotations

import asyncio

import pytest

from docs_mcp.errors import InvalidArgument
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
