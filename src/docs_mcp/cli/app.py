"""One process's wiring: settings from the arguments, then sources, fetcher, index, search and tools."""

from __future__ import annotations

import argparse
import asyncio
from functools import cached_property
from typing import TYPE_CHECKING

from docs_mcp import settings as C
from docs_mcp.cli.grammar import SOURCELESS
from docs_mcp.cli.project import default_versions, source_specs
from docs_mcp.cli.secrets import index_url
from docs_mcp.cli.terminal import answer_for_terminal, for_terminal, say  # noqa: F401  (re-exported)
from docs_mcp.errors import DocsMCPError
from docs_mcp.fetch.fetching import Fetcher
from docs_mcp.fetch.sources import SourceSet, missing_folder
from docs_mcp.model.progress import Builds
from docs_mcp.search.semantic.signal import active_model
from docs_mcp.search.site.search import SiteSearch, model_notice
from docs_mcp.store.interface import Scope
from docs_mcp.store.opening import open_store
from docs_mcp.tools.docs import DocsTools
from docs_mcp.tools.session import LocalSessions, Sessions, SharedSessions

if TYPE_CHECKING:
    from docs_mcp.crawl.indexer import Indexer


def settings_from(args: argparse.Namespace) -> C.Settings:
    shared = index_url(args, say)
    return C.Settings(
        max_chars=max(1000, args.max_chars),
        cache_size=args.cache_size,
        cache_ttl=args.cache_ttl,
        cache_mb=args.cache_mb,
        max_body_bytes=args.max_body_bytes,
        read_timeout=args.timeout,
        deadline=max(0.1, args.deadline),
        crawl_limit=args.crawl_limit,
        concurrency=max(1, args.concurrency),
        index_ttl_days=args.index_ttl_days,
        cache_dir=args.cache_dir or C.default_cache_dir(),
        # A replica of a shared index never crawls on start: the crawl is a job of its own (`docslice index`).
        auto_index=not getattr(args, "no_index", False) and not shared,
        index_url=shared,
        session_budget=getattr(args, "session_budget", None),
    )


class App:
    """Everything one process needs, wired once: sources, fetcher, index, indexer, tools.

    A damaged index file is moved aside and rebuilt; an index that cannot be used at all (an unwritable
    cache dir, a newer version's file) leaves `index` and `search` None: pages are still served, without
    site search, and `index_notice` says why.
    """

    def __init__(self, args: argparse.Namespace, workers: int | None = None):
        self.settings = settings_from(args)
        active_model()  # a misspelt DOCSLICE_SEMANTIC_MODEL fails here, not in every search
        if model_notice():
            say(model_notice())
        # A server serves the sources that work: a missing folder is said, not fatal (its answers name it).
        serving = getattr(args, "command", None) == "serve"
        self.sources = SourceSet.from_specs(
            source_specs(args, required=getattr(args, "command", None) not in SOURCELESS),
            missing_ok=serving,
            defaults=default_versions(args),
        )
        self.fetcher = Fetcher(self.sources, self.settings)
        self.builds = Builds()
        opened = open_store(self.settings, serving=serving)
        self.index, self.index_notice, self.index_damaged = opened.index, opened.notice, opened.damaged
        self.search = (
            SiteSearch(self.index, self.sources, self.builds, shared=bool(self.settings.index_url))
            if self.index is not None
            else None
        )
        self.workers = workers
        self.tools = DocsTools(self.sources, self.settings, self.fetcher, self.search, store=self.search)
        if self.index is None:
            self.tools.search_note = f"site search is off: {self.index_notice}"
        else:
            self.index.on_heal = self._after_heal
        #: The serving loop (set when the server starts): a rebuild after damage is started on it.
        self.loop: asyncio.AbstractEventLoop | None = None
        self._rebuild: asyncio.Future | None = None

    def sessions(self) -> Sessions:
        """Where sessions' memories are kept: in the shared index (replicas share them), else in this process."""
        if self.settings.index_url and self.index is not None:
            return SharedSessions(self.index)  # type: ignore[arg-type]
        return LocalSessions()

    def _after_heal(self, notice: str) -> None:
        """A damaged index was replaced while serving: rebuild it in the background (from any thread)."""
        if self.loop is not None and self.settings.auto_index:
            self.loop.call_soon_threadsafe(self._start_rebuild)

    def _start_rebuild(self) -> None:
        if self._rebuild is not None and not self._rebuild.done():
            return
        self.builds.announce([s.root for s in self.sources.sources])
        self._rebuild = asyncio.ensure_future(self.indexer.run(background=True))
        self._rebuild.add_done_callback(lambda _: self.builds.settle())

    def empty_roots(self) -> list[str]:
        """The roots of sources with no page in the index (all of them when it cannot say)."""
        if self.index is None:
            return []
        try:
            empty = [s for s in self.sources.sources if not self.index.page_count(Scope.of([s]))]
        except DocsMCPError:
            empty = list(self.sources.sources)
        return [s.root for s in empty if not missing_folder(s)]  # nothing to build in a missing folder

    def readiness(self) -> str:
        """Why this process cannot answer searches ("" when it can): no usable store, or an empty index."""
        why, pages = self._pages()
        return why or ("" if pages else "the index holds no page of these sources yet")

    def unusable(self) -> str:
        """Why this process cannot use its index at all ("" when it can; an index still empty can be used)."""
        return self._pages()[0]

    def _pages(self) -> tuple[str, int]:
        """(why the index cannot be used or "", how many pages of these sources it holds)."""
        if self.index is None:
            return self.index_notice or "no index", 0
        try:
            return "", self.index.page_count(self.search.scope() if self.search else None)
        except DocsMCPError as exc:
            return str(exc), 0

    @cached_property
    def indexer(self) -> Indexer:
        # Imported on first use: the parsing stack is not needed to answer initialize and tools/list.
        from docs_mcp.audit.prior import learn_prior
        from docs_mcp.crawl.indexer import Indexer

        if self.index is None:
            raise DocsMCPError(self.index_notice)
        search = self.search
        learn = (lambda source: learn_prior(search, source)) if search is not None and C.PRIOR_ON else None
        return Indexer(
            self.sources, self.settings, self.fetcher, self.index, self.workers, self.builds, learn
        )
