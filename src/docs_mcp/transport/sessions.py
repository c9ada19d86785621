"""Bounded MCP sessions: at the cap, the least recently used idle session is closed to admit a new one.

The SDK's own cap answers 503 to every new client once it is full, and its sessions live 30 idle minutes, so a
client that opens sessions in a loop and never closes them locks everyone out. Here the SDK's cap is lifted
and this middleware keeps its own, in front of it: it learns each session from the `mcp-session-id` the SDK
answers with, counts the requests in flight on each (an open event stream is not one), and when a request that may open a session comes in at
the cap, ends the least recently used session with none in flight (a DELETE, as its client would send). Only
when every session is busy is the new one refused: 429 with a reason, for that client alone.

There is one bucket: every request that passes the token check carries the one token, so the cap is per token.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from docs_mcp.transport.door import ASGIApp, reply, rpc_error

log = logging.getLogger("docs_mcp")
_SESSION = b"mcp-session-id"


def _session_of(headers: list[tuple[bytes, bytes]]) -> bytes | None:
    return next((v for k, v in headers if k.lower() == _SESSION), None)


class SessionCap:
    """ASGI middleware over the SDK's streamable HTTP app: at most `cap` live sessions, idle ones closed first."""

    def __init__(self, app: ASGIApp, cap: int, path: str):
        self.app = app
        self.path = path
        self.cap = cap
        # Session id -> requests in flight on it, least recently used first.
        self.in_flight: OrderedDict[bytes, int] = OrderedDict()
        self.opening = 0  # requests that may open a session, not yet answered

    async def __call__(self, scope: dict[str, Any], receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        session = _session_of(scope.get("headers", []))
        if session is not None:
            await self._on_session(session, scope, receive, send)
        elif scope.get("method") == "POST" and scope.get("path") == self.path:
            await self._opening(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _on_session(
        self, session: bytes, scope: dict[str, Any], receive: Callable, send: Callable
    ) -> None:
        known = session in self.in_flight
        # An event stream (GET) waits for the server; it does no work, so its session stays idle and may be
        # ended for a new client (its stream ends with it): 500 idle streams locked every new client out.
        stream = scope.get("method") == "GET"
        if known:
            self.in_flight[session] += not stream
            self.in_flight.move_to_end(session)
        status = 0

        async def watch(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            if known and session in self.in_flight:
                if status == 404 or (scope.get("method") == "DELETE" and 200 <= status < 300):
                    del self.in_flight[session]  # ended: its other requests end with it
                else:
                    self.in_flight[session] -= not stream
                    self.in_flight.move_to_end(session)

    async def _opening(self, scope: dict[str, Any], receive: Callable, send: Callable) -> None:
        evict = None
        if len(self.in_flight) + self.opening >= self.cap:
            evict = self._least_recently_used_idle()
            if evict is None:
                await self._refuse(send)
                return
        self.opening += 1
        opened: bytes | None = None

        async def watch(message: dict[str, Any]) -> None:
            nonlocal opened
            if message["type"] == "http.response.start" and message["status"] < 300:
                opened = _session_of(message.get("headers", []))
                if opened is not None:
                    self.in_flight[opened] = 1  # this request is still in flight on it
            await send(message)

        try:
            if evict is not None:
                await self._end(evict, scope)
            await self.app(scope, receive, watch)
        finally:
            self.opening -= 1
            if opened is not None and opened in self.in_flight:
                self.in_flight[opened] -= 1

    def _least_recently_used_idle(self) -> bytes | None:
        """Forget and return the least recently used session with no request in flight (None: all busy)."""
        idle = next((s for s, n in self.in_flight.items() if n == 0), None)
        if idle is not None:
            del self.in_flight[idle]
        return idle

    async def _end(self, session: bytes, scope: dict[str, Any]) -> None:
        """End `session` in the SDK as its client would: DELETE with its id."""
        delete = {**scope, "method": "DELETE", "headers": [(_SESSION, session)]}

        async def nothing() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def drop(message: dict[str, Any]) -> None:
            pass

        await self.app(delete, nothing, drop)

    async def _refuse(self, send: Callable) -> None:
        busy = len(self.in_flight)
        log.warning("refused a new MCP session: %d open, all busy", busy)
        message = (
            f"too many MCP sessions: all {busy:,} open sessions of this token are busy; end one "
            "(DELETE /mcp with its mcp-session-id) or retry in a few seconds"
        )
        await reply(send, 429, rpc_error(message), (b"retry-after", b"5"))
