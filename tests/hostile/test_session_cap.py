"""The session cap: the least recently used idle session makes room; only a client over the cap while every
session is busy is refused, with a reason. A real uvicorn and the SDK's app, on loopback, with a cap of 3."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from conftest import SITE, make_tools

from docs_mcp.transport.http import Bind, build_app, listen
from docs_mcp.transport.server import build_server

from .front_door import InThread, hold_stream, open_session, post, session_request

CAP = 3


@pytest.fixture
def served() -> Iterator[InThread]:
    bind = Bind("127.0.0.1", 0)
    sock = listen(bind)
    running = InThread(build_app(build_server(make_tools(str(SITE))), bind, sock, max_sessions=CAP), sock)
    yield running
    running.stop()


def test_at_the_cap_the_least_recently_used_idle_session_is_ended_for_a_new_one(served):
    host, port = served.host, served.port
    a, b, c = (open_session(host, port) for _ in range(CAP))
    assert session_request(host, port, a) == 200  # a used last-but-one, c last: b is the least recent
    assert session_request(host, port, c) == 200
    d = open_session(host, port)
    assert session_request(host, port, b) == 404
    assert [session_request(host, port, s) for s in (a, c, d)] == [200, 200, 200]
    e = open_session(host, port)  # now a is the least recently used
    assert session_request(host, port, a) == 404
    assert [session_request(host, port, s) for s in (c, d, e)] == [200, 200, 200]


def test_only_the_client_over_the_cap_is_refused_while_every_session_is_busy(served):
    host, port = served.host, served.port
    sessions = [open_session(host, port) for _ in range(CAP)]
    streams = [hold_stream(host, port, s) for s in sessions]
    try:
        status, body, headers = post(host, port)
        assert status == 429 and headers["retry-after"] == "5"
        message = json.loads(body)["error"]["message"]
        assert message.startswith("too many MCP sessions: all 3 open sessions") and "DELETE" in message
        # Everyone else is served: the busy sessions keep answering.
        assert [session_request(host, port, s) for s in sessions] == [200] * CAP
        streams.pop(0).close()  # the first session's stream ends: it is idle, so it makes room
        deadline = time.monotonic() + 10
        while (status := post(host, port)[0]) == 429 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert status == 200
        assert session_request(host, port, sessions[0]) == 404
        assert [session_request(host, port, s) for s in sessions[1:]] == [200] * (CAP - 1)
    finally:
        for s in streams:
            s.close()


def test_a_session_its_client_deletes_frees_its_place_at_once(served):
    host, port = served.host, served.port
    sessions = [open_session(host, port) for _ in range(CAP)]
    streams = [hold_stream(host, port, s) for s in sessions]
    try:
        assert post(host, port)[0] == 429
        version = "2025-06-18"
        ended = post(
            host, port, "", method="DELETE", mcp_session_id=sessions[0], mcp_protocol_version=version
        )
        assert ended[0] == 200
        assert post(host, port)[0] == 200  # its place, not another busy session's
        assert [session_request(host, port, s) for s in sessions] == [404, 200, 200]
    finally:
        for s in streams:
            s.close()
