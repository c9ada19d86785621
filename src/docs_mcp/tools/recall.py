"""The tools within an MCP session that remembers what it was sent (issue 46 item 2).

search_in_doc and get_doc_section never send a session the same passage twice: what an earlier call sent is
one line (`#frozen-instances: shown in your 2nd call`) and its room goes to the next best unit; `repeat=true`
sends it again. With a session budget (`--session-budget`), every answer says what is left, asks for no more
than that, and once it is spent answers with outlines and pointers only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from docs_mcp.convert.outline import page_outline
from docs_mcp.model.seen import SESSION_BUDGET_FLOOR, PageView, Seen
from docs_mcp.text.budget import window_length
from docs_mcp.tools import elide, versioned
from docs_mcp.tools.session import Sessions
from docs_mcp.tools.specs import GET_DOC_SECTION, SEARCH_IN_DOC, TOOLS
from docs_mcp.tools.window import check_start, framed, unit_place

if TYPE_CHECKING:
    from docs_mcp.tools.docs import DocsTools

#: Chars of a page's outline once the session budget is spent.
OUTLINE_CHARS = 2_000


class Recall:
    """The five tools over DocsTools, each call within its session's memory (kept in `sessions`)."""

    def __init__(self, tools: DocsTools, sessions: Sessions, budget: int | None = None):
        self.tools = tools
        self.sessions = sessions
        self.budget = budget

    async def call(self, session: str, name: str, arguments: dict[str, Any]) -> str:
        """One tool call in `session`: its answer, the memory updated and saved."""
        seen = await asyncio.to_thread(self.sessions.load, session)
        seen.calls += 1
        left = None if self.budget is None else self.budget - seen.used
        args = dict(arguments)
        if left is not None and "max_length" in args:
            # What is left, less the room of an answer's header and footer.
            room = left - SESSION_BUDGET_FLOOR
            args["max_length"] = max(1, min(window_length(args["max_length"], self.tools.cap), room))
        spent = left is not None and left < SESSION_BUDGET_FLOOR
        text = await self._answer(seen, name, args, spent)
        seen.used += len(text)
        if self.budget is not None:
            rest = max(0, self.budget - seen.used)
            text += f"\n\n(session budget: {rest:,} of {self.budget:,} chars left)"
        await asyncio.to_thread(self.sessions.save, session, seen)
        return text

    async def _answer(self, seen: Seen, name: str, args: dict[str, Any], spent: bool) -> str:
        repeat = bool(args.pop("repeat", False))
        if spent and "url" in args:
            return await self._outline(args["url"], args.get("version"))
        handlers: dict[str, Callable[..., Awaitable[str]]] = {
            "search_in_doc": self._search_in_doc,
            "get_doc_section": self._get_doc_section,
        }
        if name in handlers:
            return await handlers[name](seen, repeat, **args)
        spec = next(t for t in TOOLS if t.name == name)  # in call order, as DocsTools declares them
        return await getattr(self.tools, name)(*(args[p.name] for p in spec.params))

    async def _outline(self, url: str, version: str | None) -> str:
        _, doc = await versioned.document(self.tools, url, version)  # a source's versions: the one asked for
        outline = await asyncio.to_thread(page_outline, doc, OUTLINE_CHARS)
        return f"(session budget spent: the page's outline only)\n{outline}"

    async def _search_in_doc(self, seen: Seen, repeat: bool, **args: Any) -> str:
        values = [args[p.name] for p in SEARCH_IN_DOC.params]  # in call order, as DocsTools declares them
        return await self.tools.search_in_page(*values, seen=seen, repeat=repeat)

    async def _get_doc_section(self, seen: Seen, repeat: bool, **args: Any) -> str:
        url, section_id, max_length, start_index, code = (args[p.name] for p in GET_DOC_SECTION.params)
        doc, ref, text = await self.tools.unit_text(url, section_id, code)
        check_start(text, start_index, self.tools.cap, "content_length")
        view = PageView(seen, doc, code, repeat)
        limit = window_length(max_length, self.tools.cap)
        body, end, nxt, pointers = await asyncio.to_thread(elide.window, view, ref, text, start_index, limit)
        notes = [ref.note] if ref.note else []
        if pointers:
            notes.append(
                f"{pointers} part(s) this session was sent before are pointers: repeat=true sends them"
            )
        span = (start_index, end, nxt, len(text))
        where = unit_place(doc, ref)
        return framed(doc.title, where, body, span, "get_doc_section", "content_length", notes, code)
