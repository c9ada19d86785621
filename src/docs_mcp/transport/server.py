"""The MCP boundary: validates arguments, calls DocsTools, maps DocsMCPError to ToolError. Nothing else."""

from __future__ import annotations

import asyncio
import io
import logging
import re
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Annotated

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp.types import ToolAnnotations
from pydantic import Field

from docs_mcp import __version__
from docs_mcp import settings as C
from docs_mcp.errors import DocsMCPError, InvalidArgument, echo
from docs_mcp.text.budget import truncate
from docs_mcp.tools.docs import DocsTools

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

URL = Annotated[
    str,
    Field(
        description="Page URL under a configured root (a search result's url), or a path "
        "relative to a local root. A #fragment names a section or definition (get_doc_content starts there)."
    ),
]
QUERY = Annotated[str, Field(description="What you are looking for, in words.")]
MAX_LENGTH = Annotated[
    int,
    Field(
        description=f"Max content chars (default {C.DEFAULT_MAX_LENGTH}; 0 = the cap; capped server-side)."
    ),
]
START = Annotated[
    int, Field(description="Offset to start from: a previous next_start_index or a passage offset.", ge=0)
]
CODE = Annotated[
    bool, Field(description="Include code blocks (off: prose and plain-text output only, much shorter).")
]
_READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=True)


async def _call(tools: DocsTools, tool: str, work: Callable[[], Awaitable[str]], **inputs: object) -> str:
    """Run one tool within the deadline; every answer and error leaves bounded and encodable."""
    deadline = tools.settings.deadline
    limit = tools.cap + C.METADATA_ALLOWANCE
    try:
        _check_inputs(inputs)
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
    """MCPServer whose stdio transport answers a request even when its JSON holds a lone surrogate."""

    async def run_stdio_async(self) -> None:
        raw = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
        async with stdio_server(stdin=_RepairedLines(anyio.wrap_file(raw))) as (read, write):
            low = self._lowlevel_server  # as MCPServer.run_stdio_async does; only stdin differs
            await low.run(read, write, low.create_initialization_options())


def build_server(tools: DocsTools, on_start=None) -> MCPServer:
    """An MCPServer exposing the five tools over `tools`; `on_start` runs inside the server's lifespan."""

    @asynccontextmanager
    async def lifespan(_: MCPServer) -> AsyncIterator[None]:
        task = on_start() if on_start else None
        try:
            yield None
        finally:
            if task is not None:
                task.cancel()
            await tools.aclose()

    mcp = DocsServer("docs-mcp", instructions=INSTRUCTIONS, version=__version__, lifespan=lifespan)

    @mcp.tool(structured_output=False, annotations=_READ_ONLY)
    async def search_docs(
        query: QUERY,
        ctx: Context,
        max_results: Annotated[int, Field(description=f"Hits, 1-{C.MAX_RESULTS}.")] = C.DEFAULT_MAX_RESULTS,
        include_headings: Annotated[
            bool, Field(description=f"Add each page's headings (≤{C.HEADINGS_CAP}).")
        ] = False,
        source: Annotated[str | None, Field(description="Only this named source.")] = None,
    ) -> str:
        """Search the documentation site(s). Returns pages with the url#section of their best section, its \
heading path and a short snippet. Name APIs as written (time.sleep, round(), -O): the page defining them \
ranks first. Next: get_doc_section or search_in_doc on a hit."""
        progress = getattr(tools.searcher, "progress", None)
        if progress is not None:
            done, total = progress()
            if total and done < total:
                await ctx.report_progress(done, total, f"indexed {done} of ~{total} pages")
        return await _call(
            tools,
            "search_docs",
            lambda: tools.search_docs(query, max_results, include_headings, source),
            query=query,
            source=source,
        )

    @mcp.tool(structured_output=False, annotations=_READ_ONLY)
    async def search_in_doc(
        url: URL,
        query: QUERY,
        max_sections: Annotated[
            int, Field(description=f"Sections, 1-{C.MAX_SECTIONS}.")
        ] = C.DEFAULT_MAX_SECTIONS,
        max_length: MAX_LENGTH = C.DEFAULT_MAX_LENGTH,
        include_code_blocks: CODE = False,
    ) -> str:
        """The sections of one page that best match a query (long sections: only the matching passages, \
with offsets for get_doc_section's start_index). Cheapest way to answer a question from a known page."""
        return await _call(
            tools,
            "search_in_doc",
            lambda: tools.search_in_doc(url, query, max_sections, max_length, include_code_blocks),
            url=url,
            query=query,
        )

    @mcp.tool(structured_output=False, annotations=_READ_ONLY)
    async def get_doc_toc(url: URL) -> str:
        """A page's outline: title, size, and every heading with its section id and size in chars."""
        return await _call(tools, "get_doc_toc", lambda: tools.get_doc_toc(url), url=url)

    @mcp.tool(structured_output=False, annotations=_READ_ONLY)
    async def get_doc_section(
        url: URL,
        section_id: Annotated[
            str,
            Field(
                description="Any id on the page (from get_doc_toc, a url's #fragment, a definition like re.sub) "
                "or a heading's text."
            ),
        ],
        max_length: MAX_LENGTH = C.DEFAULT_MAX_LENGTH,
        start_index: START = 0,
        include_code_blocks: CODE = False,
    ) -> str:
        """One section with its subsections as markdown. When cut, the header gives next_start_index."""
        return await _call(
            tools,
            "get_doc_section",
            lambda: tools.get_doc_section(url, section_id, max_length, start_index, include_code_blocks),
            url=url,
            section_id=section_id,
        )

    @mcp.tool(structured_output=False, annotations=_READ_ONLY)
    async def get_doc_content(
        url: URL,
        max_length: MAX_LENGTH = C.DEFAULT_MAX_LENGTH,
        start_index: START = 0,
        include_code_blocks: CODE = False,
    ) -> str:
        """A whole page as markdown, one window at a time: follow next_start_index until 'end of content'. \
Prefer search_in_doc or get_doc_section."""
        return await _call(
            tools,
            "get_doc_content",
            lambda: tools.get_doc_content(url, max_length, start_index, include_code_blocks),
            url=url,
        )

    return mcp
