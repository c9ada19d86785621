"""Building and refreshing the site index: discover, fetch (conditionally), digest on all cores, store."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field
from urllib.parse import urlsplit
from urllib.robotparser import RobotFileParser

from .config import MAX_RETRY_AFTER, USER_AGENT, Settings
from .discovery import in_scope, local_pages, page_links, parse_llms_txt, parse_robots, parse_sitemap
from .document import Document
from .errors import DocsMCPError, FetchError, PageNotFound, RetryLater
from .fetching import Fetcher, RawPage
from .index import SiteIndex
from .parsing import find_main, generated_index_chars, normalize_space, parse_html
from .pipeline import build_document
from .sources import Location, Source, SourceSet

#: A page whose main text is mostly link text is a table of contents or an index: crawl it, don't rank it.
NAVIGATION_LINK_SHARE = 0.6
NAVIGATION_MIN_LINKS = 30
#: A page whose text is at least this share generated keyword index is navigation too; a one-page book that
#: ends with its index is content first.
GENERATED_INDEX_SHARE = 0.5
MAX_SITEMAPS = 50

ProgressFn = Callable[["Progress"], None]


@dataclass
class Progress:
    """Live counters of one build, for progress bars, status lines and MCP progress notifications."""

    source: str
    method: str = "…"
    done: int = 0
    discovered: int = 0
    fetched: int = 0
    not_modified: int = 0
    fresh: int = 0
    removed: int = 0
    failed: int = 0
    robots_skipped: int = 0
    #: Addresses that redirect to another page of the source: that page is indexed, once, in their place.
    redirected: int = 0
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    errors: list[str] = field(default_factory=list)

    @property
    def elapsed(self) -> float:
        return (self.finished or time.monotonic()) - self.started


def digest(raw: RawPage, url: str) -> tuple[Document, list[str], bool]:
    """CPU part of indexing one page (runs in a worker process): document, outgoing links, is-navigation."""
    if raw.kind == "markdown":
        return build_document(raw, url), parse_llms_txt(raw.text, raw.location.key), False
    root = parse_html(raw.text)
    links = page_links(root, raw.location.key) if not raw.location.source.is_local else []
    main = find_main(root)
    anchors = main.findall(".//a")
    link_chars = sum(len(normalize_space(a.text_content())) for a in anchors)
    total = len(normalize_space(main.text_content())) or 1
    navigation = (
        len(anchors) >= NAVIGATION_MIN_LINKS and link_chars / total > NAVIGATION_LINK_SHARE
    ) or generated_index_chars(main) >= GENERATED_INDEX_SHARE * total
    return build_document(raw, url, root, main), links, navigation


class Indexer:
    """Builds or refreshes the index of each source; one build per source at a time."""

    def __init__(
        self,
        sources: SourceSet,
        settings: Settings,
        fetcher: Fetcher,
        index: SiteIndex,
        workers: int | None = None,
    ):
        self.sources = sources
        self.settings = settings
        self.fetcher = fetcher
        self.index = index
        self.workers = (os.cpu_count() or 1) if workers is None else workers
        self.running: dict[str, Progress] = {}

    def progress(self) -> tuple[int, int]:
        """(pages done, pages known so far) over the builds under way."""
        live = [p for p in self.running.values() if p.finished is None]
        return sum(p.done for p in live), sum(p.discovered for p in live)

    async def run(
        self,
        refresh: bool = False,
        only_empty: bool = False,
        on_progress: ProgressFn | None = None,
        sources: list[Source] | None = None,
    ) -> list[Progress]:
        """Index every source (or those given); `only_empty` skips sources already indexed."""
        executor = self._executor()
        reports = []
        try:
            for source in sources or self.sources.sources:
                if only_empty and self.index.page_count(source.name):
                    continue
                reports.append(await self.build(source, refresh, on_progress, executor))
        finally:
            if executor is not None:
                executor.shutdown(wait=False, cancel_futures=True)
        return reports

    def _executor(self) -> Executor | None:
        if self.workers <= 1:
            return None
        # forkserver: workers never inherit the event loop or open sockets of this process.
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        return ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context(method))

    async def build(
        self,
        source: Source,
        refresh: bool = False,
        on_progress: ProgressFn | None = None,
        executor: Executor | None = None,
    ) -> Progress:
        prog = Progress(source.name)
        self.running[source.name] = prog
        known = {p.key: p for p in self.index.pages(source.name)}
        robots: RobotFileParser | None = None
        crawl = False
        if source.is_local:
            prog.method = "folder"
            seeds = local_pages(source, self.settings.crawl_limit)
        else:
            robots, seeds, prog.method = await self._discover(source)
            crawl = prog.method == "crawl"
        seen: set[str] = set()
        queue: asyncio.Queue[str] = asyncio.Queue()

        def enqueue(keys: list[str]) -> None:
            for key in keys:
                if key not in seen and len(seen) < self.settings.crawl_limit:
                    seen.add(key)
                    queue.put_nowait(key)
            prog.discovered = len(seen)

        def follow(urls: list[str]) -> None:
            if crawl:
                enqueue([k for k in (in_scope(self.sources, source, u) for u in urls) if k])

        async def page(key: str) -> None:
            if robots is not None and not robots.can_fetch(USER_AGENT, key):
                prog.robots_skipped += 1
                return
            loc = Location(source, key)
            uid = loc.uid
            state = known.get(uid)
            age = time.time() - state.fetched_at if state else None
            if state and not refresh and age is not None and age < self.settings.index_ttl_days * 86400:
                prog.fresh += 1
                follow(self.index.links(uid))
                return
            try:
                raw = await self._fetch(
                    loc, state.etag if state else "", state.last_modified if state else "", prog
                )
            except PageNotFound as exc:
                if state:  # it was indexed and is gone now (404/410): it leaves the index
                    await asyncio.to_thread(self.index.remove, uid)
                    prog.removed += 1
                else:
                    prog.failed += 1
                    prog.errors.append(f"broken link: {exc}")
                return
            if raw is None:
                return
            final = in_scope(self.sources, source, raw.location.key) if raw.location.key != key else key
            if final and final != key:  # redirected within the source: indexed once, at its final address
                if state:
                    await asyncio.to_thread(self.index.remove, uid)
                prog.redirected += 1
                enqueue([final])  # fetched again there unless already queued (the crawl limit still holds)
                return
            if raw.not_modified:
                prog.not_modified += 1
                await asyncio.to_thread(self.index.touch, uid)
                follow(self.index.links(uid))
                return
            url = self.sources.display_url(loc)
            loop = asyncio.get_running_loop()
            doc, links, navigation = await loop.run_in_executor(executor, digest, raw, url)
            await asyncio.to_thread(self.index.put, uid, doc, not navigation, links)
            prog.fetched += 1
            follow(links)

        async def worker() -> None:
            while True:
                key = await queue.get()
                try:
                    await page(key)
                except DocsMCPError as exc:
                    prog.failed += 1
                    prog.errors.append(f"{key}: {exc}")
                except Exception as exc:  # one bad page must not stop the build; say what happened
                    prog.failed += 1
                    prog.errors.append(f"{key}: unexpected {exc.__class__.__name__}: {exc}")
                finally:
                    prog.done += 1
                    if on_progress:
                        on_progress(prog)
                    queue.task_done()

        enqueue(seeds)
        tasks = [asyncio.create_task(worker()) for _ in range(max(1, self.settings.concurrency))]
        try:
            await queue.join()
        finally:
            for t in tasks:
                t.cancel()
            prog.finished = time.monotonic()
            self.index.set_meta(f"built:{source.name}", str(time.time()))
            if on_progress:
                on_progress(prog)
        return prog

    async def _fetch(self, loc: Location, etag: str, last_modified: str, prog: Progress) -> RawPage | None:
        """Fetch with backoff on 429/503; None (and an error noted) when it fails; PageNotFound propagates."""
        for attempt in range(4):
            try:
                return await self.fetcher.fetch(loc, etag, last_modified)
            except RetryLater as exc:
                await asyncio.sleep(min(exc.retry_after or 2.0**attempt, MAX_RETRY_AFTER))
            except PageNotFound:
                raise
            except FetchError as exc:
                prog.failed += 1
                prog.errors.append(str(exc))
                return None
        prog.failed += 1
        prog.errors.append(f"{loc.key}: still rate-limited after retries")
        return None

    async def _discover(self, source: Source) -> tuple[RobotFileParser | None, list[str], str]:
        """robots.txt, then sitemaps, then llms.txt; a link crawl from the root when neither lists pages."""
        parts = urlsplit(source.root)
        host_root = f"{parts.scheme}://{parts.netloc}/"
        robots = None
        sitemap_urls = [source.root + "sitemap.xml"]
        body = await self.fetcher.fetch_file(host_root + "robots.txt")
        if body is not None:
            robots, named = parse_robots(body.decode("utf-8", "replace"), host_root + "robots.txt")
            sitemap_urls = named + [u for u in sitemap_urls if u not in named]
        pages: list[str] = []
        fetched = 0
        while sitemap_urls and fetched < MAX_SITEMAPS:
            url = sitemap_urls.pop(0)
            if urlsplit(url).netloc != parts.netloc:
                continue
            body = await self.fetcher.fetch_file(url)
            fetched += 1
            if body:
                found, nested = parse_sitemap(body)
                pages.extend(found)
                sitemap_urls.extend(nested)
        keys = _unique(k for k in (in_scope(self.sources, source, u) for u in pages) if k)
        method = "sitemap" if keys else ""
        body = await self.fetcher.fetch_file(source.root + "llms.txt")
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
