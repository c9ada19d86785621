"""Building and refreshing the site index: discover, fetch (conditionally), digest on all cores, store."""

from __future__ import annotations

import asyncio
import multiprocessing
import multiprocessing.forkserver
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from typing import TypeVar
from urllib.parse import urlsplit

from docs_mcp.crawl.digest import digest, generated, lower_priority, worker_init
from docs_mcp.errors import DocsMCPError, FetchError, IndexDamaged, IndexUnavailable, PageNotFound, RetryLater
from docs_mcp.fetch.discovery import (
    Robots,
    in_scope,
    local_pages,
    parse_llms_txt,
    parse_robots,
    parse_sitemap,
)
from docs_mcp.fetch.fetching import Fetcher, RawPage
from docs_mcp.fetch.sources import Location, Source, SourceSet
from docs_mcp.model.progress import BUILD_META, Builds, Progress, failure
from docs_mcp.search.semantic import active_model, encode_sections
from docs_mcp.settings import MAX_RETRY_AFTER, ROBOTS_MAX_BYTES, SEMANTIC_FILL_BATCH, Settings
from docs_mcp.store.interface import PageState, Scope, Store

__all__ = ["Indexer", "Progress", "digest", "generated"]

MAX_SITEMAPS = 50
#: Seconds between two attempts at the build lock of a source another process is building.
LOCK_POLL_SECONDS = 0.25

ProgressFn = Callable[[Progress], None]
T = TypeVar("T")


class Indexer:
    """Builds or refreshes the index of each source; one build of a root at a time, across processes too."""

    def __init__(
        self,
        sources: SourceSet,
        settings: Settings,
        fetcher: Fetcher,
        index: Store,
        workers: int | None = None,
        builds: Builds | None = None,
    ):
        self.sources = sources
        self.settings = settings
        self.fetcher = fetcher
        self.index = index
        self.workers = (os.cpu_count() or 1) if workers is None else workers
        self.builds = builds or Builds()

    def progress(self) -> tuple[int, int]:
        """(pages done, pages known so far) over the builds under way."""
        return self.builds.progress()

    async def run(
        self,
        refresh: bool = False,
        only_empty: bool = False,
        on_progress: ProgressFn | None = None,
        sources: list[Source] | None = None,
        background: bool = False,
    ) -> list[Progress]:
        """Index every source (or those given); `only_empty` skips sources already indexed.

        `background`: a server's build, beside its searches. Its parsing processes and the thread writing
        the index then run niced (WORKER_NICENESS), so a search gets a core first.
        """
        todo = [
            s
            for s in sources or self.sources.sources
            if not (only_empty and self.index.page_count(Scope.of([s])))
        ]
        self.builds.announce([s.root for s in todo])
        executor = self._executor(background) if todo else None
        # The index is used from a thread of its own: writes wait for each other there, not in the default
        # pool, where they would hold every thread and make searches wait for a free one.
        nice = (lambda: lower_priority(threading.get_native_id())) if background else None
        store = ThreadPoolExecutor(1, "docs-mcp-store", nice)
        reports = []
        try:
            for source in todo:
                reports.append(await self._locked_build(source, refresh, on_progress, executor, store))
        finally:
            self.builds.settle()
            store.shutdown(wait=True)
            if executor is not None:
                # Waiting joins the workers and frees their queues: no "leaked semaphore" warning at exit.
                executor.shutdown(wait=True, cancel_futures=True)
        return reports

    def _executor(self, background: bool) -> Executor | None:
        if self.workers <= 1:
            return None
        # forkserver: workers never inherit the event loop or open sockets of this process.
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        if method == "forkserver" and threading.current_thread() is threading.main_thread():
            # Ctrl-C reaches the whole process group, and a worker spends its first second importing
            # before its initializer can ignore SIGINT: killed then, it breaks the pool (a traceback from
            # the pool's manager thread). A forkserver started while SIGINT is ignored forks every worker
            # with it ignored; this process's own handler is back right after.
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
            try:
                multiprocessing.forkserver.ensure_running()
            finally:
                signal.signal(signal.SIGINT, previous)
        return ProcessPoolExecutor(
            self.workers,
            mp_context=multiprocessing.get_context(method),
            initializer=worker_init,
            initargs=(os.getpid(), background),
        )

    async def _locked_build(
        self,
        source: Source,
        refresh: bool,
        on_progress: ProgressFn | None,
        executor: Executor | None,
        store: Executor,
    ) -> Progress:
        """Build one source once its build lock is ours: a concurrent run of the same root goes first, and
        this one then finds its pages fresh instead of crawling the site again."""
        prog = Progress(source.name, source.root)
        self.builds.begin(prog)
        lock = self.index.build_lock(source.root)
        try:
            while not lock.try_acquire():
                if not prog.waiting:
                    prog.waiting = lock.holder() or "?"
                    if on_progress:
                        on_progress(prog)
                await asyncio.sleep(LOCK_POLL_SECONDS)
            prog.waiting = ""
            prog.started = time.monotonic()
            try:
                await Build(self, source, prog, refresh, on_progress, executor, store).run()
            finally:
                lock.release()
        finally:
            self.builds.end(prog)
        return prog


class Build:
    """One build of one source: discovery, the page queue, and what happens to each page."""

    def __init__(
        self,
        indexer: Indexer,
        source: Source,
        prog: Progress,
        refresh: bool,
        on_progress: ProgressFn | None,
        executor: Executor | None,
        store: Executor,
    ):
        self.indexer = indexer
        self.index = indexer.index
        self.sources = indexer.sources
        self.settings = indexer.settings
        self.source = source
        self.prog = prog
        self.refresh = refresh
        self.on_progress = on_progress
        self.executor = executor
        self.store = store
        self.scope = Scope.of([source])
        self.known: dict[str, PageState] = {}
        self.robots: Robots | None = None
        self.crawl = False
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
        if self.source.is_local:
            prog.method = "folder"
            seeds = local_pages(self.source, self.settings.crawl_limit)
        else:
            self.robots, seeds, prog.method = await self._discover()
            self.crawl = prog.method == "crawl"
        self.enqueue(seeds)
        tasks = [asyncio.create_task(self.worker()) for _ in range(max(1, self.settings.concurrency))]
        try:
            await self.queue.join()
            await self._fill_vectors()
        finally:
            for t in tasks:
                t.cancel()
            prog.finished = time.monotonic()
            await self._in_store(self._conclude)
            if self.on_progress:
                self.on_progress(prog)
        return prog

    async def _fill_vectors(self) -> None:
        """Section vectors for pages indexed before the `semantic` extra was installed, computed in the
        workers like a page's rows; nothing to do (one query) once every listed page has them."""
        model = active_model()
        if model is None or self.stopped:
            return
        loop, after = asyncio.get_running_loop(), 0
        try:
            while pages := await self._in_store(
                self.index.without_vectors, model, self.scope, SEMANTIC_FILL_BATCH, after
            ):
                # In-process (one worker) they run on the store's thread: never in the pool searches use.
                run_on = self.executor or self.store
                blobs = await asyncio.gather(
                    *(loop.run_in_executor(run_on, encode_sections, rows, model) for _, rows in pages)
                )
                rows = [(pid, blob) for (pid, _), blob in zip(pages, blobs, strict=True)]
                await self._in_store(self.index.put_vectors, model, rows)
                after = pages[-1][0]
        except IndexUnavailable as exc:
            self.prog.errors.append(f"section vectors (the semantic extra) not stored: {exc}")

    def _conclude(self) -> None:
        """Count what the source has now, name why it has nothing, and store the outcome for every process."""
        prog = self.prog
        try:
            prog.pages = self.index.page_count(self.scope)
            if not prog.pages and not prog.cause:
                if prog.unwritten:
                    prog.cause = f"{prog.unwritten:,} pages could not be stored in the index"
                elif prog.robots_skipped:
                    prog.cause = f"robots.txt disallows its pages ({prog.robots_skipped:,} skipped)"
                elif not prog.failed:
                    prog.cause = "no page found under the root"
            self.index.set_meta(BUILD_META + self.source.root, prog.outcome().to_json())
        except IndexUnavailable as exc:
            prog.errors.append(f"the outcome of this build could not be stored: {exc}")

    # --- the queue -----------------------------------------------------------------------------------
    def enqueue(self, keys: list[str]) -> None:
        for key in keys:
            if key not in self.seen and len(self.seen) < self.settings.crawl_limit:
                self.seen.add(key)
                self.queue.put_nowait(key)
        self.prog.discovered = len(self.seen)

    def follow(self, urls: list[str]) -> None:
        if self.crawl:
            self.enqueue([k for k in map(self._in_scope, urls) if k])

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
                prog.errors.append(f"{key}: not stored: {exc}")
                # A damaged file fails every later write too: the rest of the queue is not fetched for nothing.
                self.stopped = self.stopped or isinstance(exc, IndexDamaged)
            except DocsMCPError as exc:
                prog.note_error(f"{key}: {exc}", *failure(exc))
            except Exception as exc:  # one bad page must not stop the build; say what happened
                prog.note_error(f"{key}: unexpected {exc.__class__.__name__}: {exc}")
            finally:
                prog.done += 1
                if self.on_progress:
                    self.on_progress(prog)
                self.queue.task_done()

    # --- one page --------------------------------------------------------------------------------------
    async def page(self, key: str) -> None:
        prog, index = self.prog, self.index
        if self.stopped:
            return
        if self.robots is not None and not self.robots.allows(key):
            prog.robots_skipped += 1
            return
        loc = Location(self.source, key)
        uid = loc.uid
        state = self.known.get(uid)
        age = time.time() - state.fetched_at if state else None
        if state and not self.refresh and age is not None and age < self.settings.index_ttl_days * 86400:
            prog.fresh += 1
            self.follow(await self._in_store(index.links, uid))
            return
        try:
            raw = await self._fetch(loc, state.etag if state else "", state.last_modified if state else "")
        except PageNotFound as exc:
            if state:  # it was indexed and is gone now (404/410): it leaves the index
                await self._in_store(index.remove, uid)
                prog.removed += 1
            else:
                root = key == self.source.root
                prog.note_error(f"broken link: {exc}", "404 at the root" if root else "", str(exc))
            return
        if raw is None:
            return
        final = in_scope(self.sources, self.source, raw.location.key) if raw.location.key != key else key
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
        url = self.sources.display_url(loc)
        loop = asyncio.get_running_loop()
        prepared, links, _ = await loop.run_in_executor(self.executor, digest, raw, url, uid)
        await self._in_store(index.write, prepared)
        prog.fetched += 1
        self.follow(links)

    async def _fetch(self, loc: Location, etag: str, last_modified: str) -> RawPage | None:
        """Fetch with backoff on 429/503; None (and an error noted) when it fails; PageNotFound propagates."""
        for attempt in range(4):
            try:
                return await self.indexer.fetcher.fetch(loc, etag, last_modified)
            except RetryLater as exc:
                await asyncio.sleep(min(exc.retry_after or 2.0**attempt, MAX_RETRY_AFTER))
            except PageNotFound:
                raise
            except FetchError as exc:
                self.prog.note_error(str(exc), *failure(exc))
                return None
        self.prog.note_error(f"{loc.key}: still rate-limited after retries", "rate-limited (429/503)")
        return None

    async def _discover(self) -> tuple[Robots | None, list[str], str]:
        """robots.txt, then sitemaps, then llms.txt; a link crawl from the root when neither lists pages.

        Every discovery file is fetched on the source's own origin only, redirects included: robots.txt
        refused or failing counts as absent (never obeyed), and sitemaps named elsewhere are skipped."""
        source, fetcher = self.source, self.indexer.fetcher
        parts = urlsplit(source.root)
        host_root = f"{parts.scheme}://{parts.netloc}/"
        limit = self.settings.max_body_bytes
        robots = None
        sitemap_urls = [source.root + "sitemap.xml"]
        body = await fetcher.fetch_file(host_root + "robots.txt", source, ROBOTS_MAX_BYTES)
        if body is not None:
            robots, named = parse_robots(body.decode("utf-8", "replace"))
            sitemap_urls = named + [u for u in sitemap_urls if u not in named]
        pages: list[str] = []
        fetched = 0
        while sitemap_urls and fetched < MAX_SITEMAPS:
            url = sitemap_urls.pop(0)
            try:
                url = self.sources.discovery_url(url, source)
            except DocsMCPError:  # on another origin (or unreadable): not fetched
                continue
            body = await fetcher.fetch_file(url, source, limit)
            fetched += 1
            if body:
                found, nested = parse_sitemap(body, limit)
                pages.extend(found)
                sitemap_urls.extend(nested)
        keys = _unique(k for k in (in_scope(self.sources, source, u) for u in pages) if k)
        method = "sitemap" if keys else ""
        body = await fetcher.fetch_file(source.root + "llms.txt", source, limit)
        if body:
            llms = [
                k
                for k in (
                    in_scope(self.sources, source, u)
                    for u in parse_llms_txt(body.decode("utf-8", "replace"), source.root)
                )
                if k
            ]
            if llms:
                keys = _unique([*keys, *llms])
                method = f"{method}+llms.txt" if method else "llms.txt"
        if keys:
            return robots, keys, method
        return robots, [source.root], "crawl"


def _unique(items) -> list[str]:
    return list(dict.fromkeys(items))
