"""The session cap: the least recently used idle session makes room; a session whose only request is its open
event stream is idle; only a client over the cap while every session has a call under way is refused, with a
reason. A real uvicorn and the SDK's app, on loopback, with a cap of 3, and a tool `hold` that answers when
the test lets it (a call under way for as long as the test needs)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator

import pytest
from conftest import SITE, make_tools

from docs_mcp.transport.http import Bind, build_app, listen
from docs_mcp.transport.server import build_server

from .front_door import InThread, hold_stream, open_session, post, session_request, stream_ended

CAP = 3


class Held:
    """The `hold` tool's calls: each waits until `release` is set; `started` counts the calls begun."""

    def __init__(self):
        self.release = threading.Event()
        self.started = threading.Semaphore(0)
        self.threads: list[threading.Thread] = []

    async def hold(self) -> str:
        """Waits until the test lets it answer."""
        self.started.release()
        await asyncio.to_thread(self.release.wait, 30)
        return "released"

    def call_on(self, host: str, port: int, session: str) -> None:
        """A call of `hold` on `session`, under way (on a thread) once this returns."""
        body = json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "hold"}})
        headers = {"mcp_session_id": session, "mcp_protocol_version": "2025-06-18"}
        thread = threading.Thread(target=post, args=(host, port, body), kwargs=headers, daemon=True)
        thread.start()
        self.threads.append(thread)
        assert self.started.acquire(timeout=20), "the call did not start"

    def finish(self) -> None:
        self.release.set()
        for thread in self.threads:
            thread.join(timeout=30)


@pytest.fixture
def served() -> Iterator[tuple[InThread, Held]]:
    bind = Bind("127.0.0.1", 0)
    sock = listen(bind)
    held = Held()
    server = build_server(make_tools(str(SITE)))
    server.add_tool(held.hold, name="hold")
    running = InThread(build_app(server, bind, sock, max_sessions=CAP), sock)
    yield running, held
    held.finish()
    running.stop()


def test_at_the_cap_the_least_recently_used_idle_session_is_ended_for_a_new_one(served):
    host, port = served[0].host, served[0].port
    a, b, c = (open_session(host, port) for _ in range(CAP))
    assert session_request(host, port, a) == 200  # a used last-but-one, c last: b is the least recent
    assert session_request(host, port, c) == 200
    d = open_session(host, port)
    assert session_request(host, port, b) == 404
    assert [session_request(host, port, s) for s in (a, c, d)] == [200, 200, 200]
    e = open_session(host, port)  # now a is the least recently used
    assert session_request(host, port, a) == 404
    assert [session_request(host, port, s) for s in (c, d, e)] == [200, 200, 200]


def test_a_session_holding_only_an_idle_event_stream_is_ended_for_a_new_client(served):
    host, port = served[0].host, served[0].port
    sessions = [open_session(host, port) for _ in range(CAP)]
    streams = [hold_stream(host, port, s) for s in sessions]
    try:
        status, body, _ = post(host, port)
        assert status == 200, body[:300]  # was 429: "all 3 open sessions of this token are busy"
        assert stream_ended(streams[0])  # the least recently used session ended, its stream with it
        assert [session_request(host, port, s) for s in sessions] == [404, 200, 200]
        assert not stream_ended(streams[1], timeout=0.5)
    finally:
        for s in streams:
            s.close()


def test_only_the_client_over_the_cap_is_refused_while_every_session_has_a_call_under_way(served):
    (running, held), host = served, served[0].host
    port = running.port
    sessions = [open_session(host, port) for _ in range(CAP)]
    for s in sessions:
        held.call_on(host, port, s)
    status, body, headers = post(host, port)
    assert status == 429 and headers["retry-after"] == "5"
    message = json.loads(body)["error"]["message"]
    assert message.startswith("too many MCP sessions: all 3 open sessions") and "DELETE" in message
    # Everyone else is served: the busy sessions keep answering.
    assert [session_request(host, port, s) for s in sessions] == [200] * CAP
    held.finish()  # the calls end: their sessions are idle, so they make room
    deadline = time.monotonic() + 10
    while (status := post(host, port)[0]) == 429 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert status == 200
    # One of them (whichever call ended first: the least recently used) was ended for it.
    assert sorted(session_request(host, port, s) for s in sessions) == [200] * (CAP - 1) + [404]


def test_a_session_its_client_deletes_frees_its_place_at_once(served):
    (running, held), host = served, served[0].host
    port = running.port
    sessions = [open_session(host, port) for _ in range(CAP)]
    for s in sessions:
        held.call_on(host, port, s)
    assert post(host, port)[0] == 429
    version = "2025-06-18"
    ended = post(host, port, "", method="DELETE", mcp_session_id=sessions[0], mcp_protocol_version=version)
    assert ended[0] == 200
    assert post(host, port)[0] == 200  # its place, not another busy session's
    assert [session_request(host, port, s) for s in sessions] == [404, 200, 200]
