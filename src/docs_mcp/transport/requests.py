"""Requests that hold a place without using it: a POST counts for nothing (no session slot, no SDK task) until
its whole body is in, and event streams (GET /mcp) are bounded per client address and in all. A whole body's lone
surrogate escapes ("\\ud800") are made U+FFFD, as on stdio: the SDK answered "Parse error" to the request.

A body is parsed only when it is worth it: one holding over MAX_BODY_VALUES JSON values gets 413 before
the SDK parses it (parsed, 1.4 million `{}` took ~100 MB), and bodies over LARGE_BODY_BYTES go on
LARGE_BODIES_AT_ONCE at a time, each until it is answered (24 such bodies at once took 2.5 GB).

A body that never completes is cut by the body deadline (connections.py: 408); the client that gives up
half-way is dropped here quietly (the SDK logged a traceback for each). A client holding more than
HTTP_STREAMS_PER_CLIENT streams has its oldest ended, as if it had gone (an event stream reopens by itself), and
past HTTP_MAX_STREAMS in all (at most half the connections) the oldest of all ends: streams never hold every
connection (a stateless server has none: replica.PostOnly answers GET with 405).
"""

from __future__ import annotations

import asyncio
import re
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

from docs_mcp import http_settings as H
from docs_mcp.transport.connections import refusals
from docs_mcp.transport.door import ASGIApp, reply, rpc_error
from docs_mcp.transport.server import repair_json_line

#: Bodies are read whole up to this size (the SDK's own limit, which answers 413 past it); then passed on.
BUFFERED_BODY_BYTES = 4 * 1024 * 1024
#: A body holding over this many JSON values (`{`, `[`, `,` outside strings; a call of these tools needs a few
#: dozen) gets 413 unparsed; requests with a body over LARGE_BODY_BYTES (none of these calls needs one) are served
#: LARGE_BODIES_AT_ONCE at a time, the others waiting their turn with their body read.
MAX_BODY_VALUES = 10_000
LARGE_BODY_BYTES = 64 * 1024
LARGE_BODIES_AT_ONCE = 2

Message = dict[str, Any]
#: A JSON string, escapes included, matched possessively: one pass over any body.
_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"')
#: Each object and array opens with one of these, and each further item follows a comma.
_MARKS = (b"{", b"[", b",")


def _marks(data: bytes) -> int:
    return sum(data.count(mark) for mark in _MARKS)


def json_values(body: bytes) -> int:
    """A bound on the objects, arrays and items `body` holds: its `{`, `[` and `,` outside strings."""
    return _marks(_STRING.sub(b'""', body))


async def _whole_body(receive: Callable) -> tuple[list[Message], int, int]:
    """The request's messages up to the end of its body (or past BUFFERED_BODY_BYTES), or to a disconnect;
    the body's size, and its `{`, `[` and `,` (strings included: at least its JSON values)."""
    messages, size, marks = [], 0, 0
    while True:
        message = await receive()
        messages.append(message)
        size += len(message.get("body", b""))
        marks += _marks(message.get("body", b""))
        if message["type"] != "http.request" or not message.get("more_body") or size > BUFFERED_BODY_BYTES:
            return messages, size, marks


def _repaired(body: bytes) -> bytes:
    """A JSON-RPC body with each lone surrogate escape made U+FFFD (see server.repair_json_line)."""
    if b"\\u" not in body:
        return body
    try:
        return repair_json_line(body.decode("utf-8")).encode("utf-8")
    except UnicodeDecodeError:  # not UTF-8: the SDK says so itself
        return body


class WholeBodies:
    """ASGI middleware: a POST goes on once its body is in, if it holds at most `max_values` JSON values; one
    whose client left half-way goes nowhere; bodies over `large` bytes go on `at_once` at a time."""

    def __init__(
        self,
        app: ASGIApp,
        max_values: int = MAX_BODY_VALUES,
        large: int = LARGE_BODY_BYTES,
        at_once: int = LARGE_BODIES_AT_ONCE,
    ):
        self.app = app
        self.max_values, self.large = max_values, large
        self.turns = asyncio.Semaphore(at_once)

    async def __call__(self, scope: dict[str, Any], receive: Callable, send: Callable) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        messages, size, marks = await _whole_body(receive)
        if messages[-1]["type"] == "http.disconnect":
            return  # the client left (or its body was too slow and was answered 408): nothing to answer
        if size <= self.large:
            await self._pass(scope, messages, marks, receive, send)
            return
        async with self.turns:  # until answered: a call holds its arguments (a body's size, parsed) that long
            await self._pass(scope, messages, marks, receive, send)

    async def _pass(
        self, scope: dict[str, Any], messages: list[Message], marks: int, receive: Callable, send: Callable
    ) -> None:
        """The request on to the app: its whole body repaired as one message (413 if it holds too many values)."""
        if not messages[-1].get("more_body"):  # whole: one message, its lone surrogate escapes repaired
            body = b"".join(m.get("body", b"") for m in messages)
            messages.clear()
            if marks > self.max_values and json_values(body) > self.max_values:
                refusals.note(f"a request body held over {self.max_values:,} JSON values (413)")
                message = (
                    f"request refused: its body holds over {self.max_values:,} JSON values (objects, arrays "
                    "and their items), more than this server parses; a call of its tools needs a few dozen"
                )
                await reply(send, 413, rpc_error(message))
                return
            messages.append({"type": "http.request", "body": _repaired(body), "more_body": False})
        pending = deque(messages)
        messages.clear()

        async def replay() -> Message:
            return pending.popleft() if pending else await receive()

        await self.app(scope, replay, send)


class StreamBudget:
    """ASGI middleware: at most `per_client` open GET streams on `path` per client address and `total` in all
    (past either, the oldest one ends: an event stream reopens by itself)."""

    def __init__(self, app: ASGIApp, per_client: int, path: str, total: int = H.HTTP_MAX_STREAMS):
        self.app = app
        self.per_client, self.total = per_client, total
        self.path = path
        self.streams: dict[str, OrderedDict[object, asyncio.Event]] = {}
        self.every: OrderedDict[object, str] = OrderedDict()  # every open stream's client, oldest first

    async def __call__(self, scope: dict[str, Any], receive: Callable, send: Callable) -> None:
        if scope["type"] != "http" or scope.get("method") != "GET" or scope.get("path") != self.path:
            await self.app(scope, receive, send)
            return
        client = (scope.get("client") or ("",))[0]
        mine = self.streams.setdefault(client, OrderedDict())
        key, ended = object(), asyncio.Event()
        mine[key], self.every[key] = ended, client
        while len(mine) > self.per_client:
            self._end(
                next(iter(mine)),
                f"a client opened over {self.per_client} event streams; its oldest was ended",
            )
        while len(self.every) > self.total:
            self._end(
                next(iter(self.every)), f"over {self.total} event streams were open; the oldest was ended"
            )

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
            self._forget(key, client)

    def _end(self, key: object, why: str) -> None:
        client = self.every[key]
        self.streams[client][key].set()
        self._forget(key, client)
        refusals.note(why)

    def _forget(self, key: object, client: str) -> None:
        self.every.pop(key, None)
        mine = self.streams.get(client, {})
        mine.pop(key, None)
        if not mine:
            self.streams.pop(client, None)
