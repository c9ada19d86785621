"""`serve --http`: MCP over streamable HTTP at /mcp; loopback by default, a bearer token beyond it.

Outermost first, every request passes: the connection limits (connections.py), the probes (health.py:
/healthz at once, /readyz after the Host/Origin check), the Host/Origin check (door.py), the token check, the
whole bodies and the streams' budget (requests.py; a stateless server answers GET with 405), the session cap (sessions.py; none when stateless), then
the SDK's app."""

from __future__ import annotations

import hmac
import json
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from docs_mcp import http_settings as H
from docs_mcp import settings as C
from docs_mcp.errors import InvalidArgument
from docs_mcp.transport.bind import Bind, check_bind, is_loopback, parse_bind  # noqa: F401  (re-exported)
from docs_mcp.transport.door import FrontDoor, door_for
from docs_mcp.transport.health import Health
from docs_mcp.transport.replica import PostOnly, ReadyGate
from docs_mcp.transport.requests import StreamBudget, WholeBodies
from docs_mcp.transport.session_ids import SessionIds
from docs_mcp.transport.sessions import SessionCap

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

ASGIApp = Callable[..., Any]


class BearerAuth:
    """ASGI middleware: every HTTP request carries `Authorization: Bearer <token>`, or gets 401."""

    def __init__(self, app: ASGIApp, token: str):
        self.app = app
        self.token = token.encode()

    def authorized(self, scope: dict[str, Any]) -> bool:
        given = b""
        for name, value in scope.get("headers", ()):
            if name == b"authorization":
                given = value
        scheme, _, credentials = given.strip().partition(b" ")
        # compare_digest takes the same time wherever the strings differ: the token cannot be guessed
        # a character at a time from response times.
        return hmac.compare_digest(credentials.strip(), self.token) and scheme.lower() == b"bearer"

    async def __call__(self, scope: dict[str, Any], receive: Callable, send: Callable) -> None:
        if scope["type"] in ("http", "websocket") and not self.authorized(scope):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            body = json.dumps(
                {"error": "unauthorized: send the server's token as 'Authorization: Bearer <token>'"}
            ).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                        (b"www-authenticate", b'Bearer realm="docslice"'),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)


@dataclass(frozen=True)
class Serving:
    """How a replica serves: `stateless` keeps no session between requests (any replica answers any request,
    JSON responses), `ready` says why it cannot answer searches ("" when it can), `grace` is how long a
    SIGTERM waits for calls under way, `unusable` why its index cannot be used at all (stateless: its MCP
    endpoint then answers 503, for the balancer to send the call elsewhere)."""

    stateless: bool = False
    ready: Callable[[], str] | None = None
    grace: float = C.DEADLINE
    unusable: Callable[[], str] | None = None


def build_app(
    server: MCPServer,
    bind: Bind,
    sock: socket.socket,
    max_sessions: int = H.HTTP_MAX_SESSIONS,
    serving: Serving | None = None,
    max_streams: int = H.HTTP_MAX_STREAMS,
) -> ASGIApp:
    """The SDK's streamable HTTP app (one session manager, one lifespan: every session shares one
    DocsTools, so one cache and one index) behind the session cap (none when stateless: there is no session
    to cap), the token check when there is a token, and the Host/Origin check of the address `sock` listens
    on; /healthz in front of all (a probe need not carry the token), /readyz behind the Host/Origin check.
    Stateless, the SDK's app takes POST alone and answers 503 while the index cannot be used (replica.py)."""
    from mcp.server.transport_security import TransportSecuritySettings

    serving = serving or Serving()
    app = server.streamable_http_app(
        streamable_http_path=H.HTTP_PATH,
        session_idle_timeout=None if serving.stateless else H.HTTP_SESSION_IDLE_TIMEOUT,
        # SessionCap keeps the cap; the SDK's own (503 for every new client) is only a backstop.
        max_sessions=2 * max_sessions,
        # FrontDoor checks Host and Origin exactly, on every bind; the SDK's check matches by prefix and
        # only on three spellings of loopback.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        stateless_http=serving.stateless,
        json_response=serving.stateless,
    )
    if serving.stateless:  # behind a balancer: POST only (replica.py), and 503 while the index cannot be used
        app = PostOnly(
            ReadyGate(app, serving.unusable, H.HTTP_PATH) if serving.unusable else app, H.HTTP_PATH
        )
        app = SessionIds(app, H.HTTP_PATH)  # the id that names a session's memory on every replica
    if not serving.stateless:
        app = SessionCap(app, max_sessions, H.HTTP_PATH)
    app = WholeBodies(StreamBudget(app, H.HTTP_STREAMS_PER_CLIENT, H.HTTP_PATH, max_streams))
    auth = BearerAuth(app, bind.token) if bind.token else None
    address, port = sock.getsockname()[:2]
    door = door_for(address, port, bind.names)
    ready = serving.ready or (lambda: "")
    return Health(FrontDoor(auth or app, door), ready, door, auth.authorized if auth else None)


def listen(bind: Bind) -> socket.socket:
    """Bind and listen now, so the port is known (PORT 0 picks a free one) before the address is printed."""
    try:
        infos = socket.getaddrinfo(bind.host, bind.port, type=socket.SOCK_STREAM)
        family, _, _, _, address = infos[0]
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(H.HTTP_BACKLOG)
    except OSError as exc:
        raise InvalidArgument(f"cannot listen on {bind.host}:{bind.port}: {exc.strerror or exc}") from exc
    return sock


def serve_http(
    server: MCPServer,
    bind: Bind,
    announce: Callable[[str], None] | None = None,
    serving: Serving | None = None,
) -> None:
    """Serve until SIGINT/SIGTERM: uvicorn stops accepting, lets the calls under way finish (at most
    `serving.grace` seconds), then the server's lifespan closes."""
    serving = serving or Serving()
    import uvicorn

    from docs_mcp.transport.connections import guarded_protocol, limits_for, raise_file_limit

    limits = limits_for(raise_file_limit())
    sock = listen(bind)
    port = sock.getsockname()[1]
    auth = "bearer token required" if bind.token else "no token: loopback only"
    mode = " · stateless" if serving.stateless else ""
    message = f"serving MCP (streamable HTTP) at {bind.url(port)} · {auth}{mode}"
    (announce or (lambda m: print(m, file=sys.stderr, flush=True)))(message)
    config = uvicorn.Config(
        # Event streams keep their connection: at most half of them, so new clients always find one.
        build_app(
            server,
            bind,
            sock,
            serving=serving,
            max_streams=min(H.HTTP_MAX_STREAMS, limits.max_connections // 2),
        ),
        log_level="warning",
        lifespan="on",
        http=guarded_protocol(limits),
        backlog=H.HTTP_BACKLOG,  # also the most connections the event loop accepts at once
        timeout_keep_alive=int(limits.header_timeout),
        timeout_graceful_shutdown=max(1, round(serving.grace)),
    )
    uvicorn.Server(config).run(sockets=[sock])
