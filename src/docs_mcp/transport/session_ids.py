"""Session ids for stateless replicas: a replica keeps no session, yet a client that initializes is handed an
`mcp-session-id`, which MCP clients send back on every later request, to whichever replica. The id names the
session's memory of what it was sent (tools/session.py), kept in the shared index: any replica answers the
next call knowing what the others sent. It is 192 random bits: a client cannot guess another's, and one that
makes an id up reads only a memory of its own."""

from __future__ import annotations

import json
import secrets
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from docs_mcp.tools.session import digest
from docs_mcp.transport.door import ASGIApp

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context

_SESSION = b"mcp-session-id"


def new_session_id() -> str:
    return secrets.token_urlsafe(24)


def _initializes(body: bytes) -> bool:
    """Whether a request's body is an `initialize` request."""
    if b"initialize" not in body:
        return False
    try:
        message = json.loads(body)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("method") == "initialize"


class SessionIds:
    """ASGI middleware: the answer to an `initialize` POSTed to `path` without a session id carries a new one."""

    def __init__(self, app: ASGIApp, path: str):
        self.app = app
        self.path = path

    async def __call__(self, scope: dict[str, Any], receive: Callable, send: Callable) -> None:
        headers = scope.get("headers", [])
        if (
            scope["type"] != "http"
            or scope.get("method") != "POST"
            or scope.get("path") != self.path
            or any(k.lower() == _SESSION for k, _ in headers)
        ):
            await self.app(scope, receive, send)
            return
        body = bytearray()

        async def read() -> dict[str, Any]:
            message = await receive()
            if message["type"] == "http.request":
                body.extend(message.get("body", b""))
            return message

        async def write(message: dict[str, Any]) -> None:
            if (
                message["type"] == "http.response.start"
                and message["status"] < 300
                and _initializes(bytes(body))
            ):
                given = [(k, v) for k, v in message.get("headers", []) if k.lower() != _SESSION]
                message = {**message, "headers": [*given, (_SESSION, new_session_id().encode())]}
            await send(message)

        await self.app(scope, read, write)


def session_key(ctx: Context) -> str | None:
    """Whose memory a call uses: the HTTP session's id (hashed), or this connection's on stdio; None over HTTP
    without a session id (a stateless call that did not initialize)."""
    request = ctx.request_context.request
    if request is None:
        # A ServerSession is made per request; its connection (the SDK keeps it private) lives as long as the
        # client's: it carries the session's key, a fresh one, so no later connection inherits the memory.
        connection = getattr(ctx.session, "_connection", None)
        if connection is None:
            return None
        return connection.__dict__.setdefault("docslice_session", f"connection-{uuid.uuid4().hex}")
    given = request.headers.get("mcp-session-id")
    return digest(given) if given else None
