"""Event streams cannot lock clients out (issue 43, item 3): past the cap on streams in all the oldest one
ends, whichever address holds it; 500 sessions each holding an idle stream, from 17 loopback addresses, leave a
new client served. In-process servers (uvicorn, the SDK's app) and, for the 500, `serve --http`."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from conftest import SITE, make_tools

from docs_mcp import http_settings as H
from docs_mcp.transport.http import Bind, Serving, build_app, listen
from docs_mcp.transport.server import build_server

from .front_door import (
    InThread,
    Served,
    hold_stream,
    open_session,
    raise_own_file_limit,
    stream_ended,
    time_to_serve,
)

TOTAL = 4


def in_thread(serving: Serving, **caps: int) -> InThread:
    bind = Bind("127.0.0.1", 0)
    sock = listen(bind)
    return InThread(build_app(build_server(make_tools(str(SITE))), bind, sock, serving=serving, **caps), sock)


@pytest.fixture
def capped() -> Iterator[InThread]:
    running = in_thread(Serving(), max_streams=TOTAL)
    yield running
    running.stop()


def test_past_the_cap_on_streams_the_oldest_of_all_ends_whichever_address_holds_it(capped):
    host, port = capped.host, capped.port
    sources = ["127.0.0.2", "127.0.0.3", "127.0.0.4"]
    streams = []
    try:
        for i in range(TOTAL + 2):  # two from each address: under the per-address budget
            streams.append(hold_stream(host, port, open_session(host, port), source=sources[i % 3]))
        assert [stream_ended(s, timeout=5) for s in streams[:2]] == [True, True]
        assert [stream_ended(s, timeout=0.3) for s in streams[2:]] == [False] * TOTAL
        assert time_to_serve(host, port, timeout=30) < 30
    finally:
        for s in streams:
            s.close()


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_500_idle_streams_from_17_addresses_leave_a_new_client_served(tmp_path):
    """The issue's case: 500 sessions (the cap), each holding its event stream, 17 loopback addresses (under
    32 streams each). Every new client got 429 ("all 500 open sessions of this token are busy")."""
    if not raise_own_file_limit(2048):
        pytest.skip("this test holds 500 sockets: its hard open-file limit is lower")
    served = Served("127.0.0.1:0", "--source", str(SITE), "--cache-dir", str(tmp_path))
    streams = []
    try:
        for i in range(H.HTTP_MAX_SESSIONS):
            session = open_session(served.host, served.port)
            streams.append(hold_stream(served.host, served.port, session, source=f"127.0.0.{2 + i % 17}"))
        started = time.monotonic()
        took = [time_to_serve(served.host, served.port, timeout=60) for _ in range(3)]
        print(f"500 idle streams held: 3 new clients served in {', '.join(f'{t:.3f} s' for t in took)}")
        assert max(took) < 5, took
        assert time.monotonic() - started < 15
        assert sum(stream_ended(s, timeout=0.05) for s in streams[:10]) >= 3  # the ended sessions' streams
    finally:
        for s in streams:
            s.close()
        served.stop()
