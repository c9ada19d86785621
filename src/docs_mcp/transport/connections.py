"""Bounded connections in front of uvicorn: a header deadline, the open-file limit raised, room for new clients.

uvicorn alone has none of this: a connection that has not finished its headers is kept for as long as the
sender likes, and its `limit_concurrency` answers 503 to everyone once stalled connections fill it. So its
h11 protocol is extended here: a connection that has not sent complete headers within HTTP_HEADER_TIMEOUT
seconds is closed (an idle keep-alive connection too), and when the connection cap is reached the connection
that has waited longest for a request is closed to make room for the one just accepted. A client that sends
its request promptly is never the one closed.
"""

from __future__ import annotations

import asyncio
import resource
from collections import OrderedDict
from dataclasses import dataclass

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from docs_mcp import settings as C

#: The most a soft open-file limit is raised to (an unlimited hard limit is not a number to allocate by).
_FILE_LIMIT_CEILING = 1 << 20


@dataclass(frozen=True)
class Limits:
    """How long a request's headers may take, and how many client connections are kept open at once."""

    header_timeout: float
    max_connections: int


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
    room = open_files - C.HTTP_FILE_RESERVE - 2 * C.HTTP_BACKLOG
    return Limits(C.HTTP_HEADER_TIMEOUT, max(C.HTTP_MIN_CONNECTIONS, min(C.HTTP_MAX_CONNECTIONS, room)))


def guarded_protocol(limits: Limits) -> type[H11Protocol]:
    """uvicorn's h11 protocol with the header deadline and the connection cap of `limits`."""
    # Connections waiting for a request (not yet sent, or headers partly sent), longest-waiting first.
    waiting: OrderedDict[Guarded, asyncio.TimerHandle] = OrderedDict()

    class Guarded(H11Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._await_request()
            if len(self.connections) > limits.max_connections and waiting:
                # Full: the connection that has waited longest for a request goes (this one only if
                # every other connection is busy serving a request).
                oldest, timer = waiting.popitem(last=False)
                timer.cancel()
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

        def _await_request(self) -> None:
            """Keep the deadline running while the next request's headers are incomplete, and only then."""
            if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
                self._stop_waiting()
            elif self not in waiting:
                waiting[self] = self.loop.call_later(limits.header_timeout, self._too_slow)

        def _stop_waiting(self) -> None:
            timer = waiting.pop(self, None)
            if timer is not None:
                timer.cancel()

        def _too_slow(self) -> None:
            waiting.pop(self, None)
            if not self.transport.is_closing():
                self.transport.close()

    return Guarded
