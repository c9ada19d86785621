"""The five tools as library calls: each returns exactly the text the model will see, within its budget."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from typing import Protocol

from docs_mcp import settings as C
from docs_mcp.errors import DeadlineExceeded, DocsMCPError, ParseError
from docs_mcp.fetch.fetching import Fetcher
from docs_mcp.fetch.sources import Location, SourceSet
from docs_mcp.model.document import Document
from docs_mcp.model.hits import SearchHit
from docs_mcp.model.section import Ref
from docs_mcp.model.seen import PageView, Seen
from docs_mcp.text.budget import window_length
from docs_mcp.text.tidy import clip
from docs_mcp.tools import specs
from docs_mcp.tools.cache import DocumentCache
from docs_mcp.tools.cpu import CPUPool
from docs_mcp.tools.search_answer import answer, search_cache
from docs_mcp.tools.versioned import document, elsewhere, search_scope
from docs_mcp.tools.window import unit_place, window

__all__ = ["DocsTools", "DocumentStore", "SearchHit", "Searcher"]

log = logging.getLogger("docs_mcp")


class Searcher(Protocol):
    """What search_docs needs from a site index (see index.py); None means 'search the cache'."""

    def search(self, query: str, limit: int, source: str | None) -> list[SearchHit]: ...
    def search_with_status(
        self, query: str, limit: int, source: str | None
    ) -> tuple[list[SearchHit], list[str], str, bool]: ...
    def headings(self, url: str) -> list[tuple[int, str, str]]: ...
    def status_line(self) -> str: ...


class DocumentStore(Protocol):
    """Where converted documents persist between runs (the site index): read before fetching."""

    def load_document(self, key: str) -> Document | None: ...


class DocsTools:
    """search_docs, search_in_doc, get_doc_toc, get_doc_section, get_doc_content over one shared pipeline."""

    def __init__(
        self,
        sources: SourceSet,
        settings: C.Settings,
        fetcher: Fetcher | None = None,
        searcher: Searcher | None = None,
        store: DocumentStore | None = None,
    ):
        self.sources = sources
        self.settings = settings
        self.fetcher = fetcher or Fetcher(sources, settings)
        self.cache = DocumentCache(settings.cache_size, settings.cache_ttl, settings.cache_mb << 20)
        self.cpu = CPUPool(C.PARSE_WORKERS)
        self.searcher = searcher
        self.store = store
        #: Why there is no site index, when there is none (said in search_docs's status line).
        self.search_note = ""

    @property
    def cap(self) -> int:
        return self.settings.max_chars

    async def aclose(self) -> None:
        await self.fetcher.aclose()
        self.cpu.shutdown()

    # --- the pipeline -----------------------------------------------------------------------------
    async def document(self, url: str) -> tuple[Location, Document]:
        """Resolve, then fetch+convert once; the fragment never changes what is fetched or cached."""
        loc = self.sources.resolve(url)
        shown = self.sources.display_url(loc)

        async def load() -> Document:
            # The load outlives a caller that gives up (others may wait on it), so it has its own deadline.
            deadline = self.settings.deadline
            try:
                async with asyncio.timeout(deadline):
                    return await self._load(loc, shown)
            except TimeoutError:
                raise DeadlineExceeded(
                    f"reading {shown} took over the {deadline:g}s deadline (--deadline) and was stopped; "
                    "the site or the page is slow: retry later or pick another page"
                ) from None

        doc = await self.cache.get(loc.uid, load)  # the uid: two local roots may hold the same file name
        # A page that only sends the reader on is named by where it leads, with the unit its refresh names;
        # a page read where it was asked keeps its own name, `#` and all (a local file's name may hold one).
        if not loc.fragment and doc.url != shown and "#" in doc.url:
            loc = replace(loc, fragment=doc.url.partition("#")[2])
        return loc, doc

    async def _load(self, loc: Location, shown: str) -> Document:
        if self.store is not None:
            stored = await asyncio.to_thread(self.store.load_document, loc.uid)
            if stored is not None:
                return stored
        from docs_mcp.convert.pipeline import build_document
        from docs_mcp.fetch.refresh import fetch_following

        raw = await fetch_following(self.fetcher, self.sources, loc)
        if raw.location.key != loc.key:  # named by where it was sent: the next call reads the page itself
            sent = raw.location
            shown = self.sources.display_url(sent) + (f"#{sent.fragment}" if sent.fragment else "")
        try:
            # Parsing is CPU work: off the event loop, in a pool of its own (see cpu.py).
            return await self.cpu.run(build_document, raw, shown)
        except DocsMCPError:
            raise
        except Exception as exc:  # a parser failure on a hostile page: unreadable, not the server
            log.exception("converting %s failed", shown)
            raise ParseError(
                f"{shown} could not be converted ({exc.__class__.__name__}: {str(exc)[:120]}); "
                "the page cannot be read, try another one"
            ) from None

    # --- get_doc_content --------------------------------------------------------------------------
    async def get_doc_content(
        self,
        url: str,
        max_length: int = C.DEFAULT_MAX_LENGTH,
        start_index: int = 0,
        include_code_blocks: bool = False,
    ) -> str:
        specs.GET_DOC_CONTENT.check(locals(), self.cap)  # locals(): the arguments, nothing else yet
        loc, doc = await self.document(url)
        text = await asyncio.to_thread(doc.markdown, include_code_blocks)
        notes = []
        if loc.fragment and not start_index:
            # A link to a definition (`re.html#re.sub`) is read from that definition on.
            try:
                ref = doc.find(loc.fragment)
            except DocsMCPError:
                notes.append(f"no unit #{clip(loc.fragment, 100)} on this page: reading from the top")
            else:
                start_index = doc.unit_offset(ref, include_code_blocks)
                notes.append(
                    f"started at #{doc.unit_id(ref)} ({' > '.join(doc.unit_path(ref))}), offset {start_index}; "
                    "the url without its #fragment reads from the top"
                )
        limits = (max_length, start_index, self.cap)
        return window(
            doc, text, doc.url, limits, "get_doc_content", "total_length", notes, include_code_blocks
        )

    # --- get_doc_section --------------------------------------------------------------------------
    async def get_doc_section(
        self,
        url: str,
        section_id: str,
        max_length: int = C.DEFAULT_MAX_LENGTH,
        start_index: int = 0,
        include_code_blocks: bool = False,
    ) -> str:
        specs.GET_DOC_SECTION.check(locals(), self.cap)
        doc, ref, text = await self.unit_text(url, section_id, include_code_blocks)
        notes = [ref.note] if ref.note else []
        limits = (max_length, start_index, self.cap)
        where = unit_place(doc, ref)
        return window(
            doc, text, where, limits, "get_doc_section", "content_length", notes, include_code_blocks
        )

    async def unit_text(self, url: str, section_id: str, code: bool) -> tuple[Document, Ref, str]:
        """The page, the unit its section id (else the url's #fragment) names, and the unit's markdown."""
        loc, doc = await self.document(url)
        ref = doc.find(section_id or loc.fragment)
        return doc, ref, await asyncio.to_thread(doc.unit_markdown, ref, code)

    # --- get_doc_toc ------------------------------------------------------------------------------
    async def get_doc_toc(self, url: str) -> str:
        from docs_mcp.convert.outline import page_outline

        specs.GET_DOC_TOC.check(locals(), self.cap)
        _, doc = await self.document(url)
        return await asyncio.to_thread(page_outline, doc, self.cap)

    # --- search_in_doc ----------------------------------------------------------------------------
    async def search_in_doc(
        self,
        url: str,
        query: str,
        max_sections: int = C.DEFAULT_MAX_SECTIONS,
        max_length: int = C.DEFAULT_MAX_LENGTH,
        include_code_blocks: bool = False,
        version: str | None = None,
    ) -> str:
        specs.SEARCH_IN_DOC.check(locals(), self.cap)
        return await self.search_in_page(url, query, max_sections, max_length, include_code_blocks, version)

    async def search_in_page(
        self,
        url: str,
        query: str,
        max_sections: int,
        max_length: int,
        code: bool,
        version: str | None,
        seen: Seen | None = None,
        repeat: bool = False,
    ) -> str:
        """search_in_doc's answer to checked arguments; within a session's memory (`seen`, see recall.py),
        what the session was sent before is a pointer unless `repeat`."""
        from docs_mcp.search.in_page.answer import search_page

        _, doc = await document(self, url, version)
        view = None if seen is None else PageView(seen, doc, code, repeat)
        limit = window_length(max_length, self.cap)
        return await asyncio.to_thread(search_page, doc, query, max_sections, limit, code, self.cap, view)

    # --- search_docs ------------------------------------------------------------------------------
    async def search_docs(
        self,
        query: str,
        max_results: int = C.DEFAULT_MAX_RESULTS,
        include_headings: bool = False,
        source: str | None = None,
        version: str | None = None,
    ) -> str:
        specs.SEARCH_DOCS.check(locals(), self.cap)
        source = search_scope(self.sources, source, version)  # a source with versions: the one asked for
        if self.searcher is not None:
            # The status line reads the index too: in the thread, not on the event loop.
            hits, terms, status, searched = await asyncio.to_thread(
                self.searcher.search_with_status, query, max_results, source or None
            )
        else:
            docs = self.cache.documents()
            hits = await asyncio.to_thread(search_cache, docs, query, max_results, source or None)
            note = self.search_note or "no site index; run `docslice index` for site-wide search"
            status, searched, terms = f"searched the {len(docs)} page(s) read so far, {note}", True, []
        status += await elsewhere(self, query, source, hits)  # pages only another version holds
        multi = len(self.sources.sources) > 1
        headings = self._headings_for if include_headings else None
        return answer(query, hits, status, multi, headings, self.cap, searched, terms)

    def _headings_for(self, url: str) -> list[tuple[int, str, str]]:
        if self.searcher is not None:
            found = self.searcher.headings(url)
            if found:
                return found
        try:
            loc = self.sources.resolve(url)
        except DocsMCPError:
            return []
        doc = self.cache.peek(loc.uid)
        return [(s.level, s.id, s.title) for s in doc.sections if s.level] if doc else []
