"""One build of one source: discovery, the page queue, and what happens to each page (fetched
conditionally, digested in a worker process, stored on the store's thread)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import TypeVar

from docs_mcp.crawl.backoff import fetch_with_backoff
from docs_mcp.crawl.digest import digest
from docs_mcp.crawl.discover import discover
from docs_mcp.crawl.rows import VectorInput, add_vectors, vector_input
from docs_mcp.crawl.writer import PageWriter, hold_lease
from docs_mcp.errors import DiskFull, DocsMCPError, IndexDamaged, IndexUnavailable, PageNotFound
from docs_mcp.fetch.discovery import Robots, in_scope, is_script, local_pages, script_links
from docs_mcp.fetch.fetching import Fetcher
from docs_mcp.fetch.page import RawPage
from docs_mcp.fetch.refresh import refreshed_within
from docs_mcp.fetch.sources import Location, Source, SourceSet
from docs_mcp.model.failures import ROOT_NOT_FOUND, failure
from docs_mcp.model.progress import BUILD_META, LEFT_OUT_COUNTED, Outcome, Progress
from docs_mcp.search.semantic.signal import active_model, encode_sections
from docs_mcp.settings import CRAWL_PAGE_LIMIT, SEMANTIC_FILL_BATCH, Settings
from docs_mcp.store.interface import PageState, Scope, Store
from docs_mcp.store.pagerows import PreparedPage

ProgressFn = Callable[[Progress], None]
T = TypeVar("T")

#: Scripts read per build for the pages they name, and how much of each: a menu or a tree index is small.
MAX_SCRIPTS = 64
MAX_SCRIPT_BYTES = 2 * 1024 * 1024
#: Queue entries for a script to read (not a page key: no page key starts with a NUL).
_SCRIPT = "\0script:"


@dataclass(frozen=True)
class BuildRun:
    """What the builds of one indexer run share: configuration, fetcher, store, and where work runs."""

    sources: SourceSet
    settings: Settings
    fetcher: Fetcher
    index: Store
    refresh: bool
    on_progress: ProgressFn | None
    #: The parsing processes (None: parse in this process, on the store's thread).
    executor: Executor | None
    #: The one thread that calls the store: writes wait for each other there, not in a shared pool.
    store: Executor
    #: Embeds the vectors of the pages the parsing processes digest (None: they do).
    vectors: Executor | None = None


class Build:
    """One build of one source: discovery, the page queue, and what happens to each page."""

    def __init__(self, run: BuildRun, source: Source, prog: Progress, fresh_since: float | None = None):
        self.shared = run
        self.index = run.index
        self.sources = run.sources
        self.settings = run.settings
        self.source = source
        self.prog = prog
        self.refresh = run.refresh
        self.fresh_since = fresh_since  # see _fresh
        self.on_progress = run.on_progress
        self.executor = run.executor
        self.store = run.store
        self.writer = PageWriter(run.index, run.store)
        self.scope = Scope.of([source])
        self.known: dict[str, PageState] = {}
        self.robots: Robots | None = None
        self.crawl = False
        self.scripts: set[str] = set()
        self.over: set[int] = set()
        self.seen: set[str] = set()
        self.resolved: dict[str, str | None] = {}
        self.queue: asyncio.Queue[str] = asyncio.Queue()
        self.stopped = False

    async def _in_store(self, fn: Callable[..., T], *args: object) -> T:
        """Run an index call on the store's thread."""
        return await asyncio.get_running_loop().run_in_executor(self.store, fn, *args)

    async def run(self) -> Progress:
        prog = self.prog
        self.known = {p.key: p for p in await self._in_store(self.index.pages, self.scope)}
        meta = BUILD_META + self.source.root
        prog.refreshing = bool(self.known) and Outcome.whole(await self._in_store(self.index.meta, meta))
        await hold_lease(self.index, self.store, meta, prog.unfinished, every=0)  # before any page is written
        if self.source.is_local:
            prog.method = "folder"
            # Found beyond the limit: counted, not read.
            seeds = local_pages(self.source, max(self.settings.crawl_limit, CRAWL_PAGE_LIMIT))
        else:
            found = await discover(
                self.shared.fetcher, self.sources, self.source, self.settings.max_body_bytes
            )
            self.robots, seeds, prog.method = found.robots, found.keys, found.method
            prog.discovery = found.problems
            self.crawl = prog.method == "crawl"
            if found.unreachable is not None:  # said once, as the root's failure; no page is asked for
                prog.never_answered(found.unreachable)
        self.enqueue(seeds)
        tasks = [asyncio.create_task(self.worker()) for _ in range(max(1, self.settings.concurrency))]
        tasks.append(asyncio.create_task(hold_lease(self.index, self.store, meta, prog.unfinished)))
        try:
            await self.queue.join()
            await self._fill_vectors()
            prog.complete = not self.stopped
        finally:
            for t in tasks:
                t.cancel()
            prog.finished = time.monotonic()
            await self._in_store(self._conclude)
            if self.on_progress:
                self.on_progress(prog)
        return prog

    async def _fill_vectors(self) -> None:
        """Section vectors for pages indexed without a semantic model, computed in the
        workers like a page's rows; nothing to do (one query) once every listed page has them."""
        model = active_model()
        if model is None or self.stopped:
            return
        loop, after = asyncio.get_running_loop(), 0
        try:
            while pages := await self._in_store(
                self.index.without_vectors, model, self.scope, SEMANTIC_FILL_BATCH, after
            ):
                inputs = await self._in_store(self._vector_inputs, pages)
                # In-process (one worker) they run on the store's thread: never in the pool searches use.
                run_on = self.shared.vectors or self.executor or self.store
                blobs = await asyncio.gather(
                    *(loop.run_in_executor(run_on, encode_sections, *vin, model) for _, vin in inputs)
                )
                rows = [(pid, blob) for (pid, _), blob in zip(inputs, blobs, strict=True)]
                await self._in_store(self.index.put_vectors, model, rows)
                after = pages[-1][0]
        except IndexUnavailable as exc:
            self.prog.errors.append(f"section vectors (semantic re-ranking) not stored: {exc}")

    def _vector_inputs(self, pages: list[tuple[int, str]]) -> list[tuple[int, VectorInput]]:
        """What each page's vectors are computed from, read back from the index (a page removed meanwhile
        has none)."""
        docs = [(pid, self.index.load_document(key)) for pid, key in pages]
        return [(pid, vector_input(doc)) for pid, doc in docs if doc is not None]

    def _conclude(self) -> None:
        """Count what the source has now, name why it has nothing, and store the outcome for every process."""
        prog = self.prog
        try:
            prog.pages = self.index.page_count(self.scope)
            if not prog.pages and not prog.cause:
                if prog.unwritten:
                    # With the store's error: "no page indexed" alone hides a full disk.
                    prog.cause = prog.unwritten_cause()
                elif prog.robots_skipped:
                    prog.cause = f"robots.txt disallows its pages ({prog.robots_skipped:,} skipped)"
                elif prog.not_found:
                    prog.cause = f"its {len(prog.not_found):,} listed pages are not found on the site (404)"
                elif not prog.failed:
                    prog.cause = "no page found under the root"
            if prog.pages or self.known:
                self.index.set_meta(BUILD_META + self.source.root, prog.outcome().to_json())
            else:  # found nothing, had nothing: no trace kept in the index (this process's Builds says why)
                self.index.forget(BUILD_META + self.source.root, [])
        except IndexUnavailable as exc:
            prog.errors.append(f"the outcome of this build could not be stored: {exc}")

    # --- the queue -----------------------------------------------------------------------------------
    def enqueue(self, keys: list[str]) -> None:
        for key in keys:
            if key in self.seen:
                continue
            if len(self.seen) < self.settings.crawl_limit:
                self.seen.add(key)
                self.queue.put_nowait(key)
            elif len(self.over) < LEFT_OUT_COUNTED:  # over the limit: counted for the summary, by hash
                self.over.add(hash(key))
        self.prog.discovered = len(self.seen)
        self.prog.left_out, self.prog.limit = len(self.over), self.settings.crawl_limit

    def follow(self, urls: list[str]) -> None:
        if not self.crawl:
            return
        self.enqueue([k for k in map(self._in_scope, urls) if k and not is_script(k)])
        for url in urls:  # scripts are read once each, for the pages they name, up to a few per build
            if is_script(url) and url not in self.scripts and len(self.scripts) < MAX_SCRIPTS:
                self.scripts.add(url)
                self.queue.put_nowait(_SCRIPT + url)

    async def _script(self, url: str) -> None:
        """Follow the pages a same-origin script names (a failure only loses those links)."""
        self.prog.scripts += 1
        try:
            body = await self.shared.fetcher.fetch_file(url, self.source, MAX_SCRIPT_BYTES)
        except DocsMCPError:
            return
        if body:
            self.follow(script_links(body.decode("utf-8", "replace"), url))

    def _in_scope(self, url: str) -> str | None:
        """in_scope, once per distinct link: navigation repeats the same ~200 links on every page, and
        resolving them all again cost 11 s of the event loop's time on a 527-page crawl."""
        url = url.partition("#")[0]  # in_scope drops the fragment too: `page.html#a` and `#b` are one page
        if url not in self.resolved:
            self.resolved[url] = in_scope(self.sources, self.source, url)
        return self.resolved[url]

    async def worker(self) -> None:
        prog = self.prog
        while True:
            key = await self.queue.get()
            try:
                await self.page(key)
            except IndexUnavailable as exc:
                prog.unwritten += 1
                prog.store_error = prog.store_error or str(exc)
                prog.errors.append(f"{key}: not stored: {exc}")
                # A damaged file or a full disk fails every later write too: the rest of the queue is not
                # fetched for nothing.
                self.stopped = self.stopped or isinstance(exc, IndexDamaged | DiskFull)
            except DocsMCPError as exc:
                prog.note_error(f"{key}: {exc}", *failure(exc))
            except Exception as exc:  # one bad page must not stop the build; say what happened
                prog.note_error(f"{key}: unexpected {exc.__class__.__name__}: {exc}")
            finally:
                prog.done += not key.startswith(_SCRIPT)  # a script is no page (counted apart, in _script)
                # Not once more per worker after the build ended (stopped at shutdown): it said so once.
                if self.on_progress and prog.finished is None:
                    self.on_progress(prog)
                self.queue.task_done()

    # --- one page --------------------------------------------------------------------------------------
    async def page(self, key: str) -> None:
        prog, index = self.prog, self.index
        if self.stopped:
            return
        if key.startswith(_SCRIPT):
            return await self._script(key[len(_SCRIPT) :])
        if self.robots is not None and not self.robots.allows(key):
            prog.robots_skipped += 1
            return
        loc = Location(self.source, key)
        uid = loc.uid
        state = self.known.get(uid)
        if state and self._fresh(state.fetched_at):
            prog.fresh += 1
            self.follow(await self._in_store(index.links, uid))
            return
        try:
            raw = await fetch_with_backoff(self.shared.fetcher, loc, state, prog)
        except PageNotFound as exc:
            if state:  # it was indexed and is gone now (404/410): it leaves the index
                await self._in_store(index.remove, uid)
                prog.removed += 1
            elif key == self.source.root:
                prog.note_error(f"broken link: {exc}", ROOT_NOT_FOUND, str(exc))
            else:  # a link on the site to a page it does not have: the site's broken link, not our failure
                prog.not_found.append(key)
            return
        if raw is None:
            return
        final = in_scope(self.sources, self.source, raw.location.key) if raw.location.key != key else key
        final = refreshed_within(self.sources, self.source, raw) or final  # a <meta> refresh: the same
        if final and final != key:  # redirected within the source: indexed once, at its final address
            if state:
                await self._in_store(index.remove, uid)
            prog.redirected += 1
            self.enqueue([final])  # fetched again there unless already queued (the crawl limit still holds)
            return
        if raw.not_modified:
            prog.not_modified += 1
            await self._in_store(index.touch, uid)
            self.follow(await self._in_store(index.links, uid))
            return
        prepared, links = await self._digest(raw, self.sources.display_url(loc), uid)
        await self.writer.write(prepared)
        prog.fetched += 1
        self.follow(links)

    async def _digest(self, raw: RawPage, url: str, uid: str) -> tuple[PreparedPage, list[str]]:
        """A page's rows and links from a parsing process, its vectors embedded here if left to this one."""
        loop, vectors = asyncio.get_running_loop(), self.shared.vectors
        page, links, _, texts = await loop.run_in_executor(self.executor, digest, raw, url, uid, not vectors)
        if texts is not None and vectors is not None:
            page = await loop.run_in_executor(vectors, add_vectors, page, texts, active_model())
        return page, links

    def _fresh(self, fetched_at: float) -> bool:
        """Younger than the TTL (without --refresh), or revalidated by another build this one waited for."""
        if self.fresh_since is not None and fetched_at >= self.fresh_since:
            return True
        return not self.refresh and time.time() - fetched_at < self.settings.index_ttl_days * 86400
