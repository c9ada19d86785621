"""A stateless replica behind a load balancer: its MCP endpoint answers 503 while the replica cannot use its
index, so the balancer (nginx's `proxy_next_upstream http_503`) sends the call to another replica instead of
the client receiving a tool error; and `GET /mcp` (an event stream that a replica without sessions never
writes to) is 405, as the MCP spec allows, instead of a stream held open for nothing."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from docs_mcp.transport.door import ASGIApp, reply, rpc_error
from docs_mcp.transport.health import READY_TIMEOUT

#: Seconds a verdict on the index is trusted: at most one check a second per replica, whatever the load.
VERDICT_FRESH = 1.0
#: Seconds a good verdict still lets calls through while the next check runs (no call waits for it); past
#: this, calls wait for the check (at most READY_TIMEOUT) like the first call does.
VERDICT_STALE = 5.0
#: The balancer may try this replica again after it (nginx marks it failed for its own fail_timeout).
RETRY_AFTER = b"2"


class ReadyGate:
    """ASGI middleware: POSTs to `path` answer 503 and why while `unusable()` says the index cannot be used."""

    def __init__(self, app: ASGIApp, unusable: Callable[[], str], path: str):
        self.app = app
        #: "" when the index can be used, else why not (run in a thread: it asks the store).
        self.unusable = unusable
        self.path = path
        self._verdict: tuple[float, str] | None = None  # (time.monotonic() of the check, its reason)
        self._check: asyncio.Future[str] | None = None

    async def __call__(self, scope: dict[str, Any], receive: Callable, send: Callable) -> None:
        if scope["type"] == "http" and scope.get("method") == "POST" and scope.get("path") == self.path:
            why = await self.reason()
            if why:
                message = (
                    f"unavailable: this replica cannot use its index ({why}); another replica may answer"
                )
                await reply(send, 503, rpc_error(message), (b"retry-after", RETRY_AFTER))
                return
        await self.app(scope, receive, send)

    async def reason(self) -> str:
        """The last verdict while fresh; else a new check, awaited unless the last one was good and recent."""
        now = time.monotonic()
        verdict = self._verdict
        if verdict is not None and now - verdict[0] < VERDICT_FRESH:
            return verdict[1]
        if self._check is None or self._check.done():
            self._check = asyncio.ensure_future(self._run())
        if verdict is not None and not verdict[1] and now - verdict[0] < VERDICT_STALE:
            return ""
        try:
            return await asyncio.wait_for(asyncio.shield(self._check), READY_TIMEOUT)
        except TimeoutError:
            why = f"the index did not answer within {READY_TIMEOUT:g} s"
            self._verdict = (time.monotonic(), why)  # the calls meanwhile answer at once; the check goes on
            return why

    async def _run(self) -> str:
        try:
            why = await asyncio.to_thread(self.unusable)
        except Exception as exc:  # a check that breaks says so; the replica is not served blind
            why = f"{type(exc).__name__}: {exc}"
        self._verdict = (time.monotonic(), why)
        return why


class PostOnly:
    """ASGI middleware: `path` takes POST alone; GET and DELETE (a stream, a session's end) are 405."""

    def __init__(self, app: ASGIApp, path: str):
        self.app = app
        self.path = path

    async def __call__(self, scope: dict[str, Any], receive: Callable, send: Callable) -> None:
        if (
            scope["type"] == "http"
            and scope.get("path") == self.path
            and scope.get("method") in ("GET", "DELETE")
        ):
            message = f"{scope['method']} {self.path} is not served: this replica is stateless (no session, no stream); POST a request"
            await reply(send, 405, rpc_error(message), (b"allow", b"POST"))
            return
        await self.app(scope, receive, send)
