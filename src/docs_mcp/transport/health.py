"""Probes for a load balancer or orchestrator: `GET /healthz` (the process answers) and `GET /readyz` (the
store is reachable and holds an index: 503 otherwise). /healthz is answered before every check and says
nothing; /readyz passes the Host/Origin check like every request, and gives its reason (which may name the
index's address, password masked) only to a caller with the token when there is one: a probe needs only
the status."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from docs_mcp.transport.door import ASGIApp, Door, refusal_of, reply, rpc_error

#: Seconds a readiness check may take before the replica is called not ready: /readyz answers within 2 s
#: always. Only the first check after the database is lost waits for it; the store's breaker then answers
#: the next ones at once with its reason.
READY_TIMEOUT = 1.5


class Health:
    """ASGI middleware answering the two probes; every other request goes on to `app`."""

    def __init__(
        self,
        app: ASGIApp,
        ready: Callable[[], str],
        door: Door,
        authorized: Callable[[dict[str, Any]], bool] | None = None,
    ):
        self.app = app
        #: "" when this replica can answer searches, else why not (run in a thread: it reads the store).
        self.ready = ready
        self.door = door
        #: Whether a request carries the token (None: there is no token, every caller gets the reason).
        self.authorized = authorized

    async def __call__(self, scope: dict[str, Any], receive: Callable, send: Callable) -> None:
        path = scope.get("path") if scope["type"] == "http" else None
        if path not in ("/healthz", "/readyz") or scope.get("method") not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        if path == "/healthz":
            await reply(send, 200, {"status": "alive"})
            return
        refused = refusal_of(self.door, scope)
        if refused is not None:
            await reply(send, refused[0], rpc_error(refused[1]))
            return
        try:
            why = await asyncio.wait_for(asyncio.to_thread(self.ready), READY_TIMEOUT)
        except TimeoutError:
            why = f"the store did not answer within {READY_TIMEOUT:g} s"
        except Exception as exc:  # a probe answers, whatever broke
            why = f"{type(exc).__name__}: {exc}"
        if why and self.authorized is not None and not self.authorized(scope):
            why = "not ready (send the server's token as 'Authorization: Bearer <token>' for the reason)"
        body = {"status": "ready"} if not why else {"status": "not ready", "reason": why}
        await reply(send, 503 if why else 200, body)
