"""The MCP boundary: validates arguments, calls DocsTools, maps DocsMCPError to ToolError. Nothing else."""

from __future__ import annotations

import asyncio
import inspect
import io
import logging
import os
import re
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from functools import cache
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp.types import ToolAnnotations
from pydantic import Field, TypeAdapter, ValidationError

from docs_mcp import __version__
from docs_mcp import settings as C
from docs_mcp.deadline import within
from docs_mcp.environment import env
from docs_mcp.errors import DocsMCPError, InvalidArgument, echo
from docs_mcp.text.budget import truncate
from docs_mcp.tools.docs import DocsTools
from docs_mcp.tools.recall import Recall
from docs_mcp.tools.session import LocalSessions, Sessions
from docs_mcp.tools.specs import TOOLS, Param, ToolSpec
from docs_mcp.transport.session_ids import session_key

log = logging.getLogger("docs_mcp")
_SURROGATE = re.compile("[\ud800-\udfff]")
#: A JSON string escape: a surrogate pair, a lone surrogate, or any other escape (so "\\\\ud800" stays text).
_JSON_ESCAPE = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[dD][89a-fA-F][0-9a-fA-F]{2}|\\."
)

INSTRUCTIONS = """\
Documentation tools that return only the part of a page you need. Cheapest workflow:
1. search_docs(query) finds pages; each hit's url ends in #section-id of its best section.
2. Then either get_doc_section(url, section_id) to read that section, or search_in_doc(url, query) \
for the best matching passages of one page (with offsets to read around them).
3. get_doc_toc(url) shows a page's outline with section sizes and the definitions (API names, options, \
settings) each section holds; get_doc_section takes any of those ids, e.g. re.sub.
4. get_doc_content(url) returns the whole page in pages of max_length; use it only when you need \
everything, and follow next_start_index.
Responses are capped; code blocks are left out unless include_code_blocks=true (each leaves a \
[code: lang, N lines] note)."""

_READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=True)
#: The name clients show (serverInfo.name); the `docs-mcp` command is an alias of the same program.
SERVER_NAME = "docslice"
#: Tools that report the site index's build progress while it runs.
_REPORTS_BUILD = frozenset({"search_docs"})
#: DOCSLICE_LOG_CALLS=1: one log line per tool call (tool, milliseconds, ok or error).
_LOG_CALLS = (env("LOG_CALLS") or "").strip() not in ("", "0")
#: Seconds a stopping server gives its background build to conclude (store its outcome, say one line).
SHUTDOWN_GRACE = 3.0


async def _call(tools: DocsTools, tool: str, work: Callable[[], Awaitable[str]], **inputs: object) -> str:
    """Run one tool; with DOCSLICE_LOG_CALLS, one log line for it: `call search_docs 42 ms ok` (or `error`)."""
    if not _LOG_CALLS:
        return await _answer(tools, tool, work, **inputs)
    began, outcome = time.perf_counter(), "error"
    try:
        text = await _answer(tools, tool, work, **inputs)
        outcome = "ok"
        return text
    finally:
        log.info("call %s %.0f ms %s", tool, (time.perf_counter() - began) * 1000, outcome)


async def _answer(tools: DocsTools, tool: str, work: Callable[[], Awaitable[str]], **inputs: object) -> str:
    """Run one tool within the deadline; every answer and error leaves bounded and encodable."""
    deadline = tools.settings.deadline
    limit = tools.cap + C.METADATA_ALLOWANCE
    try:
        _check_inputs(inputs)
        # The timeout answers the caller; `within` stops the threads the call started (they cannot be cancelled).
        with within(deadline):
            async with asyncio.timeout(deadline):
                text = await work()
    except DocsMCPError as exc:
        raise ToolError(_guard(tool, str(exc), limit)) from exc
    except TimeoutError:
        url = inputs.get("url")
        page = f" (page {echo(url, 200)})" if isinstance(url, str) else ""
        raise ToolError(
            f"{tool} did not finish within the {deadline:g}s deadline (--deadline) and was stopped{page}; "
            "the site is slow or the request too costly: retry later, ask for less, or raise --deadline"
        ) from None
    except ToolError:
        raise
    except Exception as exc:  # an agent can do nothing with a bare "Error executing tool"
        log.exception("unexpected error in %s", tool)
        raise ToolError(
            _guard(
                tool,
                f"unexpected {exc.__class__.__name__}: {str(exc)[:300]}. Try again; if it persists, report it.",
                limit,
            )
        ) from exc
    return _guard(tool, text, limit)


def _check_inputs(inputs: dict[str, object]) -> None:
    """Text arguments must be valid Unicode: a lone surrogate can be neither searched nor sent back."""
    for name, value in inputs.items():
        if isinstance(value, str) and (m := _SURROGATE.search(value)):
            raise InvalidArgument(
                f"{name} is not valid Unicode: it holds an unpaired surrogate ({m.group()!r}) at position "
                f"{m.start()}; send plain text"
            )


def _guard(tool: str, text: str, limit: int) -> str:
    """The last line of defence: nothing leaves over the cap plus its allowance, nor unencodable."""
    text = _SURROGATE.sub("\ufffd", text)
    if len(text) > limit:
        log.error("bug: %s answered %d chars, over the cap + allowance (%d); cut", tool, len(text), limit)
        note = f"\n\n[cut at {limit:,} chars by the server's final guard: a docs-mcp bug, please report it]"
        text = truncate(text, limit - len(note))[0] + note
    return text


def repair_json_line(line: str) -> str:
    """A JSON-RPC line with each lone surrogate escape ("\\ud800") made U+FFFD. The SDK's parser refuses such
    a line as invalid JSON and cannot tell which request it was, so the caller waited for an answer forever."""
    if "\\u" not in line:
        return line

    def fix(m: re.Match[str]) -> str:
        esc = m.group()
        return "\\ufffd" if len(esc) == 6 and esc[2] in "dD" else esc

    return _JSON_ESCAPE.sub(fix, line)


class _RepairedLines:
    """stdin for the stdio transport, line by line, through repair_json_line."""

    def __init__(self, lines: AsyncIterator[str]):
        self._lines = lines

    def __aiter__(self) -> AsyncIterator[str]:
        return self._repaired()

    async def _repaired(self) -> AsyncIterator[str]:
        async for line in self._lines:
            yield repair_json_line(line)


class DocsServer(MCPServer):
    """MCPServer whose stdio transport answers a request even when its JSON holds a lone surrogate, and whose
    tools refuse a bad argument in their own words (tools/specs.py), never in the schema library's."""

    #: The hard cap per response, the upper end of max_length's range.
    cap: int = C.HARD_CAP

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context | None = None) -> Any:
        spec = next((t for t in TOOLS if t.name == name), None)
        if spec is not None:
            arguments = {
                **arguments,
                **{p.name: _read(p, arguments[p.name]) for p in spec.params if p.name in arguments},
            }
            try:
                spec.check(arguments, self.cap)
            except InvalidArgument as exc:
                # Worded as the SDK words every other tool error, so all of them read alike.
                raise ToolError(f"Error executing tool {name}: {exc}") from None
        return await super().call_tool(name, arguments, context)

    async def run_stdio_async(self) -> None:
        raw = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
        async with stdio_server(stdin=_RepairedLines(anyio.wrap_file(raw))) as (read, write):
            low = self._lowlevel_server  # as MCPServer.run_stdio_async does; only stdin differs
            await low.run(read, write, low.create_initialization_options())


@cache
def _adapter(kind: Any) -> TypeAdapter[Any]:
    return TypeAdapter(kind)


def _read(param: Param, value: object) -> object:
    """A JSON value as the parameter's type, leniently as the SDK reads it ("5" → 5, "true" → True); a value
    that cannot be read (nor `true` as a number) is left as it is, for the check to refuse."""
    if param.type is int and isinstance(value, bool):
        return value
    try:
        return _adapter(param.type).validate_python(value)
    except ValidationError:
        return value


def _field(param: Param, cap: int) -> inspect.Parameter:
    """A tool parameter as the SDK reads it: annotated type, description, schema range, default."""
    # The range is published, not enforced here: the check (DocsServer.call_tool) refuses in its own words.
    bounds = {"minimum": param.low, "maximum": param.top(cap)}
    field = Field(
        description=param.description,
        json_schema_extra={k: v for k, v in bounds.items() if v is not None} or None,
    )
    return inspect.Parameter(
        param.name,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        annotation=Annotated[param.type, field],
        default=inspect.Parameter.empty if param.required else param.default,
    )


def _tool(tools: DocsTools, spec: ToolSpec, recall: Recall | None) -> Callable[..., Awaitable[str]]:
    """The MCP handler of one tool, its signature built from the tool's declaration (see tools/specs.py)."""

    async def handler(ctx: Context, **arguments: object) -> str:
        if spec.name in _REPORTS_BUILD:
            await _report_build(tools, ctx)
        if recall is not None and (session := session_key(ctx)) is not None:
            return await _call(
                tools, spec.name, lambda: recall.call(session, spec.name, arguments), **arguments
            )
        for p in spec.session:
            arguments.pop(p.name, None)
        method = getattr(tools, spec.name)
        values = [arguments[p.name] for p in spec.params]  # in call order, as DocsTools declares them
        return await _call(tools, spec.name, lambda: method(*values), **arguments)

    extra = spec.session if recall is not None else ()
    params = [
        *(_field(p, tools.cap) for p in (*spec.params, *extra)),
        inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context),
    ]
    handler.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    handler.__annotations__ = {"ctx": Context, "return": str}
    handler.__name__ = handler.__qualname__ = spec.name
    return handler


async def _report_build(tools: DocsTools, ctx: Context) -> None:
    """While the index is being built, a progress notification says how far it is."""
    progress = getattr(tools.searcher, "progress", None)
    if progress is not None:
        done, total = progress()
        if total and done < total:
            await ctx.report_progress(done, total, f"indexed {done} of ~{total} pages")


def build_server(tools: DocsTools, on_start=None, sessions: Sessions | None = None) -> MCPServer:
    """An MCPServer exposing the five tools over `tools`; `on_start` runs inside the server's lifespan;
    each session's memory of what it was sent is kept in `sessions` (default: in this process)."""
    recall = None
    if C.mechanism_on("session"):
        recall = Recall(tools, sessions or LocalSessions(), tools.settings.session_budget)

    @asynccontextmanager
    async def lifespan(_: MCPServer) -> AsyncIterator[None]:
        task = on_start() if on_start else None
        began = time.monotonic()
        log.info("started: docslice %s, pid %d", __version__, os.getpid())
        try:
            yield None
        finally:
            log.info("stopping after %.0f s (pid %d)", time.monotonic() - began, os.getpid())
            if task is not None:
                task.cancel()
                # A moment for the build to store how far it got and say it once (shielded: the server
                # may be shutting down under a cancelled scope).
                with anyio.CancelScope(shield=True):
                    await asyncio.wait({task}, timeout=SHUTDOWN_GRACE)
            await tools.aclose()

    mcp = DocsServer(SERVER_NAME, instructions=INSTRUCTIONS, version=__version__, lifespan=lifespan)
    mcp.cap = tools.cap
    for spec in TOOLS:
        mcp.add_tool(
            _tool(tools, spec, recall),
            description=spec.description,
            annotations=_READ_ONLY,
            structured_output=False,
        )
    return mcp
