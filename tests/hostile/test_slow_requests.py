"""Slow request bodies and idle event streams (issue 34, item 3): a body has a deadline (408), slow bodies and
idle streams cannot lock a prompt client out, each kind of refusal is logged once, not as a traceback per
connection, and SIGTERM stops the server within its grace with slow clients connected."""

from __future__ import annotations

import socket
import time

import pytest
from conftest import SITE

from docs_mcp import http_settings as H

from .front_door import Served, SlowBodies, hold_stream, open_session, time_to_serve

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


def serve(tmp_path, *args: str) -> Served:
    return Served("127.0.0.1:0", "--source", str(SITE), "--cache-dir", str(tmp_path), *args)


def test_a_body_not_complete_within_the_deadline_gets_408_and_is_closed(tmp_path):
    served = serve(tmp_path)
    try:
        s = socket.create_connection((served.host, served.port), timeout=H.HTTP_BODY_TIMEOUT + 10)
        start = time.monotonic()
        s.sendall(SlowBodies(served.host, served.port, 0).first())  # headers, then one byte of 100,000
        answer = s.recv(4096)
        waited = time.monotonic() - start
        assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
        assert b"did not arrive within" in answer and s.recv(4096) == b""  # then closed
        assert H.HTTP_BODY_TIMEOUT - 1 <= waited <= H.HTTP_BODY_TIMEOUT + 5, waited
        s.close()
        said = served.stderr_until("request body was not complete")
        assert said.count("request body was not complete") == 1 and "Traceback" not in said, said
    finally:
        served.stop()


@pytest.mark.parametrize("mode", [(), ("--stateless",)], ids=["sessions", "stateless"])
def test_a_new_client_is_served_under_100_slow_bodies(tmp_path, mode):
    served = serve(tmp_path, *mode)
    slow = SlowBodies(served.host, served.port, 100, seconds=60)
    try:
        deadline = time.monotonic() + 30
        while not slow.ready and time.monotonic() < deadline:
            time.sleep(0.2)
        assert slow.ready
        times = [time_to_serve(served.host, served.port, timeout=30) for _ in range(3)]
        assert max(times) < 5, times
        time.sleep(H.HTTP_BODY_TIMEOUT + 2)  # the slow bodies are cut (408) and reopened
        times.append(time_to_serve(served.host, served.port, timeout=30))
        assert max(times) < 5, times
        assert slow.reopened > 0
    finally:
        slow.stop()
    said = "".join(served.stderr())
    started = time.monotonic()
    served.stop()
    assert "Traceback" not in said and said.count("request body was not complete") <= 2, said[-3000:]
    assert time.monotonic() - started < 10


def test_idle_event_streams_past_a_clients_budget_end_its_oldest(tmp_path):
    # Sessions' streams: a stateless server has none (GET /mcp is 405 there).
    served = serve(tmp_path)
    streams = []
    try:
        for _ in range(H.HTTP_STREAMS_PER_CLIENT + 8):
            streams.append(hold_stream(served.host, served.port, open_session(served.host, served.port)))
        ended = 0
        for s in streams[:8]:  # the oldest: their streams were ended (closed, or the chunked body's end)
            s.settimeout(5)
            while (data := s.recv(4096)) and not data.endswith(b"0\r\n\r\n"):
                pass
            ended += 1
        assert ended == 8
        assert time_to_serve(served.host, served.port, timeout=30) < 5
        started = time.monotonic()
        served.stop()  # with the newest streams still open
        assert time.monotonic() - started < 10
    finally:
        for s in streams:
            s.close()
        served.stop()
