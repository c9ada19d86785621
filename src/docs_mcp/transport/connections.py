"""Bounded connections in front of uvicorn: header and body deadlines, the open-file limit raised, room for
new clients.

uvicorn alone has none of this: a connection that has not finished its headers or its body is kept for as
long as the sender likes, and its `limit_concurrency` answers 503 to everyone once stalled connections fill
it. So its h11 protocol is extended here: a connection that has not sent complete headers within
HTTP_HEADER_TIMEOUT seconds is closed (an idle keep-alive connection too), one whose request body is not
complete within HTTP_BODY_TIMEOUT seconds of its headers gets 408 and is closed, and when the connection cap
is reached the connection that has waited longest for a request or its body is closed to make room for the
one just accepted. A client that sends its request promptly is never the one closed. At shutdown, waiting
connections and idle event streams (GET) are closed at once; only calls under way get the grace period.
"""

from __future__ import annotations

import asyncio
import json
import logging
import resource
import time
from collections import OrderedDict
from dataclasses import dataclass

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from docs_mcp import http_settings as H

log = logging.getLogger("docs_mcp")

#: The most a soft open-file limit is raised to (an unlimited hard limit is not a number to allocate by).
_FILE_LIMIT_CEILING = 1 << 20


@dataclass(frozen=True)
class Limits:
    """How long a request's headers and its body may take, and how many client connections are kept open."""

    header_timeout: float
    max_connections: int
    body_timeout: float = H.HTTP_BODY_TIMEOUT


def raise_file_limit() -> int:
    """Raise the soft open-file limit to the hard one (when allowed); return the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = _FILE_LIMIT_CEILING if hard == resource.RLIM_INFINITY else min(hard, _FILE_LIMIT_CEILING)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass  # some systems cap it lower than the hard limit says: keep what we have
    return _FILE_LIMIT_CEILING if soft == resource.RLIM_INFINITY else soft


def limits_for(open_files: int) -> Limits:
    """Connections that fit in `open_files` with room kept for the index, fetches and workers, and for the
    connections accepted before the cap is applied: the event loop accepts up to a backlog's worth at once,
    and closes the ones evicted for them on its next turn."""
    room = open_files - H.HTTP_FILE_RESERVE - 2 * H.HTTP_BACKLOG
    return Limits(H.HTTP_HEADER_TIMEOUT, max(H.HTTP_MIN_CONNECTIONS, min(H.HTTP_MAX_CONNECTIONS, room)))


class Refusals:
    """One log line per kind of refusal and minute, with how many there were: not one per connection."""

    def __init__(self, period: float = 60.0):
        self.period = period
        self.counts: dict[str, int] = {}
        self.said: dict[str, float] = {}

    def note(self, kind: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        now = time.monotonic()
        if now - self.said.get(kind, -1e9) >= self.period:
            log.warning("refused %d connection(s) in the last minute: %s", self.counts[kind], kind)
            self.said[kind], self.counts[kind] = now, 0


#: The process's refusals, counted per kind (this module's and requests.py's).
refusals = Refusals()


def _timeout_response(seconds: float) -> bytes:
    """408 with a one-line JSON-RPC error, written by hand: the request's own cycle never got its body."""
    message = f"request timeout: the body did not arrive within {seconds:g} s of the headers; send it at once"
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}).encode()
    head = "HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\nconnection: close\r\n"
    return f"{head}content-length: {len(body)}\r\n\r\n".encode() + body


class Guarded(H11Protocol):
    """uvicorn's h11 protocol with the deadlines and the connection cap of `limits` (set per server: see
    guarded_protocol); `waiting` holds the connections waiting for a request or its body, longest first."""

    limits: Limits
    waiting: OrderedDict[Guarded, asyncio.TimerHandle]
    waits_for: dict[Guarded, object]  # what each waiting connection waits for: headers (IDLE) or a body

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_request()
        if len(self.connections) > self.limits.max_connections and self.waiting:
            # Full: the connection that has waited longest for a request goes (this one only if
            # every other connection is busy serving a request).
            oldest, timer = self.waiting.popitem(last=False)
            timer.cancel()
            self.waits_for.pop(oldest, None)
            refusals.note("the connection cap was reached; the one waiting longest was closed")
            oldest.transport.close()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._await_request()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._await_request()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_waiting()
        super().connection_lost(exc)

    def shutdown(self) -> None:
        """Stopping: connections waiting for a request or a body, and idle event streams, close now."""
        cycle = self.cycle
        stream = cycle is not None and cycle.scope.get("method") == "GET" and not cycle.response_complete
        if self in self.waiting or stream:
            self._stop_waiting()
            self.transport.close()
            return
        super().shutdown()

    def _await_request(self) -> None:
        """Keep a deadline running while the next request's headers are incomplete (from the first byte
        awaited) and while its body is (from the end of its headers), and only then."""
        state = self.conn.their_state
        if self.transport.is_closing() or state not in (h11.IDLE, h11.SEND_BODY):
            self._stop_waiting()
        elif self.waits_for.get(self) is not state:
            self._stop_waiting()
            seconds = self.limits.header_timeout if state is h11.IDLE else self.limits.body_timeout
            self.waiting[self] = self.loop.call_later(seconds, self._too_slow)
            self.waits_for[self] = state

    def _stop_waiting(self) -> None:
        timer = self.waiting.pop(self, None)
        self.waits_for.pop(self, None)
        if timer is not None:
            timer.cancel()

    def _too_slow(self) -> None:
        self.waiting.pop(self, None)
        state = self.waits_for.pop(self, None)
        if self.transport.is_closing():
            return
        if state is h11.SEND_BODY and not (self.cycle is not None and self.cycle.response_started):
            refusals.note(f"a request body was not complete within {self.limits.body_timeout:g} s (408)")
            self.transport.write(_timeout_response(self.limits.body_timeout))
        self.transport.close()


def guarded_protocol(limits: Limits) -> type[H11Protocol]:
    """The Guarded protocol for one server: its limits, and its own table of waiting connections."""
    return type("Guarded", (Guarded,), {"limits": limits, "waiting": OrderedDict(), "waits_for": {}})
