"""The MCP boundary: validates arguments, calls DocsTools, maps DocsMCPError to ToolError. Nothing else."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from typing import Annotated

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from . import __version__
from . import config as C
from .errors import DocsMCPError
from .tools import DocsTools

log = logging.getLogger("docs_mcp")

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


async def _call(work: Awaitable[str]) -> str:
    try:
        return await work
    except DocsMCPError as exc:
        raise ToolError(str(exc)) from exc
    except ToolError:
        raise
    except Exception as exc:  # an agent can do nothing with a bare "Error executing tool"
        log.exception("unexpected error")
        raise ToolError(
            f"unexpected {exc.__class__.__name__}: {exc}. Try again; if it persists, report it."
        ) from exc


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

    mcp = MCPServer("docs-mcp", instructions=INSTRUCTIONS, version=__version__, lifespan=lifespan)

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
        return await _call(tools.search_docs(query, max_results, include_headings, source))

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
        return await _call(tools.search_in_doc(url, query, max_sections, max_length, include_code_blocks))

    @mcp.tool(structured_output=False, annotations=_READ_ONLY)
    async def get_doc_toc(url: URL) -> str:
        """A page's outline: title, size, and every heading with its section id and size in chars."""
        return await _call(tools.get_doc_toc(url))

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
            tools.get_doc_section(url, section_id, max_length, start_index, include_code_blocks)
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
        return await _call(tools.get_doc_content(url, max_length, start_index, include_code_blocks))

    return mcp
