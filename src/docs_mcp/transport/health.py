"""Probes for a load balancer or orchestrator: `GET /healthz` (the process answers) and `GET /readyz` (the
store is reachable and holds an index: 503 with the reason otherwise). Answered before the Host/Origin and
token checks: probes carry neither, and the answers say nothing about the docs."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from docs_mcp.transport.door import ASGIApp, reply

#: Seconds a readiness check may take before the replica is called not ready: /readyz answers within 2 s
#: always. Only the first check after the database is lost waits for it; the store's breaker then answers
#: the next ones at once with its reason.
READY_TIMEOUT = 1.5


class Health:
    """ASGI middleware answering the two probes; every other request goes on to `app`."""

    def __init__(self, app: ASGIApp, ready: Callable[[], str]):
        self.app = app
        #: "" when this replica can answer searches, else why not (run in a thread: it reads the store).
        self.ready = ready

    async def __call__(self, scope: dict[str, Any], receive: Callable, send: Callable) -> None:
        path = scope.get("path") if scope["type"] == "http" else None
        if path not in ("/healthz", "/readyz") or scope.get("method") not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        if path == "/healthz":
            await reply(send, 200, {"status": "alive"})
            return
        try:
            why = await asyncio.wait_for(asyncio.to_thread(self.ready), READY_TIMEOUT)
        except TimeoutError:
            why = f"the store did not answer within {READY_TIMEOUT:g} s"
        except Exception as exc:  # a probe answers, whatever broke
            why = f"{type(exc).__name__}: {exc}"
        body = {"status": "ready"} if not why else {"status": "not ready", "reason": why}
        await reply(send, 503 if why else 200, body)
