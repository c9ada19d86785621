"""A session's memory on stateless replicas and over stdio: two replicas of one PostgreSQL index answer one
session's calls in turn, and neither sends what the other already sent (issue 46 item 2)."""

from __future__ import annotations

import os
import re
import sys

import httpx
import pytest
from conftest import SITE
from test_http import Served
from test_replicas import HEADERS, _index

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]
POINTER = re.compile(r"shown in your (\d+)(st|nd|rd|th) call")
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


def _post(url: str, body: dict, session: str | None = None) -> httpx.Response:
    headers = {**HEADERS, **({"mcp-session-id": session} if session else {})}
    response = httpx.post(url, json=body, headers=headers, timeout=60)
    assert response.status_code == 200, response.text
    return response


def _find(url: str, session: str | None, n: int) -> str:
    """search_in_doc on the fixture page, as one request of `session` (None: no session)."""
    arguments = {"url": "sphinx.html", "query": "resampling intervals"}
    body = {
        "jsonrpc": "2.0",
        "id": n,
        "method": "tools/call",
        "params": {"name": "search_in_doc", "arguments": arguments},
    }
    result = _post(url, body, session).json()["result"]
    assert not result["isError"], result
    return result["content"][0]["text"]


@pytest.mark.postgres
def test_two_stateless_replicas_never_send_one_session_the_same_section_twice(site, postgres_url):
    _index(postgres_url, site.url)
    replicas = [
        Served("--http", "127.0.0.1:0", "--stateless", "--index-url", postgres_url, "--source", site.url)
        for _ in range(2)
    ]
    try:
        first, second = (r.url for r in replicas)
        opened = _post(first, INITIALIZE)
        session = opened.headers["mcp-session-id"]
        assert len(session) >= 32
        other = _post(second, INITIALIZE).headers["mcp-session-id"]
        assert other != session  # each initialize is a new session
        on_first = _find(first, session, 1)
        on_second = _find(second, session, 2)  # the same call, on the other replica
        assert not POINTER.search(on_first)
        shown = re.findall(r"^## .* #(\S+)$", on_first, re.M)
        assert f"#{shown[0]}: shown in your 1st call" in on_second
        assert not set(re.findall(r"^## .* #(\S+)$", on_second, re.M)) & set(shown)
        # Another session, and a call without one, are sent the sections as if nothing had been sent.
        assert _find(second, other, 3) == on_first
        assert _find(first, None, 4) == on_first
        # The table holds the session hashed: the id a client sends is nowhere in it.
        import psycopg

        with psycopg.connect(postgres_url) as conn:
            keys = [k for (k,) in conn.execute("SELECT key FROM session_memory")]
        assert len(keys) == 2 and session not in keys and all(len(k) == 64 for k in keys)
    finally:
        for r in replicas:
            r.stop()


@pytest.mark.postgres
def test_the_shared_table_of_sessions_is_bounded_by_its_cap_and_time_to_live(postgres_url):
    from docs_mcp.model.seen import Seen
    from docs_mcp.store.postgres.store import open_postgres
    from docs_mcp.tools.session import SharedSessions

    store = open_postgres(postgres_url, 86400)
    try:
        sessions = SharedSessions(store, cap=3, ttl=3600)
        for n in range(5):
            sessions.save(f"s{n}", Seen(calls=n + 1))
        assert [sessions.load(f"s{n}").calls for n in range(5)] == [0, 0, 3, 4, 5]
        assert SharedSessions(store, cap=3, ttl=0).load("s4").calls == 0  # idle past its time: forgotten
    finally:
        store.close()


@pytest.mark.anyio
async def test_a_stdio_session_is_sent_a_pointer_for_what_it_was_sent(tmp_path):
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "docs_mcp", "--source", str(SITE), "--cache-dir", str(tmp_path), "--no-index"],
        env={**os.environ},
    )
    args = {"url": "sphinx.html", "query": "resampling intervals"}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        first = (await session.call_tool("search_in_doc", args)).content[0].text
        second = (await session.call_tool("search_in_doc", args)).content[0].text
        again = (await session.call_tool("search_in_doc", {**args, "repeat": True})).content[0].text
    assert not POINTER.search(first) and POINTER.search(second)
    assert again.split("\n", 2)[2] == first.split("\n", 2)[2]
