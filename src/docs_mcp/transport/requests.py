"""Requests that hold a place without using it: a POST counts for nothing (no session slot, no SDK task) until
its whole body is in, and event streams (GET /mcp) are bounded per client address. A whole body's lone
surrogate escapes ("\\ud800") are made U+FFFD, as on stdio: the SDK answered "Parse error" to the request.

A body that never completes is cut by the body deadline (connections.py: 408); the client that gives up
half-way is dropped here quietly (the SDK logged a traceback for each). A client holding more than
HTTP_STREAMS_PER_CLIENT streams has its oldest ended, as if it had gone: an event stream reopens by itself.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

from docs_mcp.transport.connections import refusals
from docs_mcp.transport.door import ASGIApp
from docs_mcp.transport.server import repair_json_line

#: Bodies are read whole up to this size (the SDK's own limit, which answers 413 past it); then passed on.
BUFFERED_BODY_BYTES = 4 * 1024 * 1024

Message = dict[str, Any]


async def _whole_body(receive: Callable) -> list[Message]:
    """The request's messages up to the end of its body (or past BUFFERED_BODY_BYTES), or to a disconnect."""
    messages, size = [], 0
    while True:
        message = await receive()
        messages.append(message)
        size += len(message.get("body", b""))
        if message["type"] != "http.request" or not message.get("more_body") or size > BUFFERED_BODY_BYTES:
            return messages


def _repaired(body: bytes) -> bytes:
    """A JSON-RPC body with each lone surrogate escape made U+FFFD (see server.repair_json_line)."""
    if b"\\u" not in body:
        return body
    try:
        return repair_json_line(body.decode("utf-8")).encode("utf-8")
    except UnicodeDecodeError:  # not UTF-8: the SDK says so itself
        return body


class WholeBodies:
    """ASGI middleware: a POST goes on once its body is in; one whose client left half-way goes nowhere."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Callable, send: Callable) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        messages = await _whole_body(receive)
        if messages[-1]["type"] == "http.disconnect":
            return  # the client left (or its body was too slow and was answered 408): nothing to answer
        if not messages[-1].get("more_body"):  # whole: one message, its lone surrogate escapes repaired
            body = _repaired(b"".join(m.get("body", b"") for m in messages))
            messages = [{"type": "http.request", "body": body, "more_body": False}]
        pending = deque(messages)

        async def replay() -> Message:
            return pending.popleft() if pending else await receive()

        await self.app(scope, replay, send)


class StreamBudget:
    """ASGI middleware: at most `per_client` open GET streams on `path` per client address."""

    def __init__(self, app: ASGIApp, per_client: int, path: str):
        self.app = app
        self.per_client = per_client
        self.path = path
        self.streams: dict[str, OrderedDict[object, asyncio.Event]] = {}

    async def __call__(self, scope: dict[str, Any], receive: Callable, send: Callable) -> None:
        if scope["type"] != "http" or scope.get("method") != "GET" or scope.get("path") != self.path:
            await self.app(scope, receive, send)
            return
        client = (scope.get("client") or ("",))[0]
        mine = self.streams.setdefault(client, OrderedDict())
        key, ended = object(), asyncio.Event()
        mine[key] = ended
        while len(mine) > self.per_client:
            mine.popitem(last=False)[1].set()
            refusals.note(f"a client opened over {self.per_client} event streams; its oldest was ended")

        async def receive_or_end() -> Message:
            """The client's own next message, or a disconnect once this stream is ended for a newer one."""
            got, end = asyncio.ensure_future(receive()), asyncio.ensure_future(ended.wait())
            await asyncio.wait({got, end}, return_when=asyncio.FIRST_COMPLETED)
            for task in (got, end):
                task.cancel()
            return got.result() if got.done() and not got.cancelled() else {"type": "http.disconnect"}

        try:
            await self.app(scope, receive_or_end, send)
        finally:
            mine.pop(key, None)
            if not mine:
                self.streams.pop(client, None)
