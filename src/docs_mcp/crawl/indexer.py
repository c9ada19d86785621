"""Building and refreshing the site index: each source's build in turn (build.py), one at a time per root
across processes, parsing on all cores."""

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

from docs_mcp.crawl.build import Build, BuildRun, ProgressFn
from docs_mcp.crawl.digest import digest, generated, lower_priority, worker_init
from docs_mcp.errors import DocsMCPError
from docs_mcp.fetch.fetching import Fetcher
from docs_mcp.fetch.sources import Source, SourceSet
from docs_mcp.fetch.versions import NAME_META, SEP
from docs_mcp.model.progress import Builds, Progress
from docs_mcp.search.semantic.signal import active_model
from docs_mcp.settings import Settings
from docs_mcp.store.interface import BuildLock, Scope, Store

__all__ = ["Indexer", "Progress", "digest", "generated"]

#: Seconds between two attempts at the build lock of a source another process is building.
LOCK_POLL_SECONDS = 0.25
#: How often a running build checks that its lock is still its own (see _keep_lock).
LOCK_CHECK_SECONDS = 2.0


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
        learn: Callable[[Source], object] | None = None,
    ):
        self.sources = sources
        #: Run on a source after a complete build, its lock still held: the thieves' prior (audit/prior.py,
        #: a layer above this one, handed in by the command line's wiring).
        self.learn = learn
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
        # With parsing processes, this process embeds the section vectors: one copy of the model, not one per
        # worker (JDK 17's Javadoc: ~40 MB a worker).
        vectors = ThreadPoolExecutor(1, "docs-mcp-vectors", nice) if executor and active_model() else None
        shared = BuildRun(
            self.sources,
            self.settings,
            self.fetcher,
            self.index,
            refresh,
            on_progress,
            executor,
            store,
            vectors,
        )
        try:
            return [await self._locked_build(source, shared) for source in todo]
        finally:
            self.builds.settle()
            store.shutdown(wait=True)
            if vectors is not None:
                vectors.shutdown(wait=True)
            if executor is not None:
                # Waiting joins the workers and frees their queues: no "leaked semaphore" warning at exit.
                executor.shutdown(wait=True, cancel_futures=True)

    def _executor(self, background: bool) -> Executor | None:
        if self.workers <= 1:
            return None
        # forkserver: workers never inherit the event loop or open sockets of this process.
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        if method == "forkserver" and threading.current_thread() is threading.main_thread():
            # Ctrl-C reaches the whole process group, and a worker spends its first second importing
            # before its initializer can ignore SIGINT: killed then, it breaks the pool (a traceback from
            # the pool's manager thread). A forkserver started while SIGINT is blocked forks every worker
            # with it blocked. Blocked, not ignored: a Ctrl-C during the start waits and reaches this
            # process right after, instead of being lost (the build then ran to its end).
            blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            try:
                multiprocessing.forkserver.ensure_running()
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        return ProcessPoolExecutor(
            self.workers,
            mp_context=multiprocessing.get_context(method),
            initializer=worker_init,
            initargs=(os.getpid(), background),
        )

    async def _locked_build(self, source: Source, shared: BuildRun) -> Progress:
        """Build one source once its build lock is ours: a concurrent run of the same root goes first, and
        this one then finds its pages fresh instead of crawling the site again."""
        prog = Progress(source.name, source.root)
        self.builds.begin(prog)
        lock = self.index.build_lock(source.root)
        try:
            waited_from, fresh_since = time.monotonic(), None
            while not lock.try_acquire():
                if not prog.waiting:
                    # Pages the other build revalidates from now on are fresh for this one too, even
                    # with --refresh: they were just revalidated.
                    fresh_since = fresh_since or time.time()
                    prog.waiting = lock.holder() or "?"
                    if shared.on_progress:
                        shared.on_progress(prog)
                await asyncio.sleep(LOCK_POLL_SECONDS)
            prog.started = time.monotonic()
            if prog.waiting:
                prog.waiting, prog.waited = "", prog.started - waited_from
                if shared.on_progress:
                    shared.on_progress(prog)  # the wait is over: said before the first bar
            build = Build(shared, source, prog, fresh_since)
            watch = asyncio.create_task(_keep_lock(lock, build, prog))
            try:
                await build.run()
                await self._learn(source, prog)
                # A version of a source: `docslice sources` names it so without --source.
                if SEP in source.name:
                    await asyncio.to_thread(self.index.set_meta, NAME_META + source.root, source.name)
            finally:
                watch.cancel()
                lock.release()
        finally:
            self.builds.end(prog)
        return prog

    async def _learn(self, source: Source, prog: Progress) -> None:
        """The source's self-audit after a complete build that left pages (a failure is the build's error)."""
        if self.learn is None or not prog.complete or not prog.pages:
            return
        try:
            await asyncio.to_thread(self.learn, source)
        except DocsMCPError as exc:
            prog.errors.append(f"{prog.source}: the thieves' prior could not be learned: {exc}")


async def _keep_lock(lock: BuildLock, build: Build, prog: Progress) -> None:
    """Check the build lock every LOCK_CHECK_SECONDS: a database restart drops an advisory lock, and a job
    that started meanwhile could take it and crawl beside this one. Lost and taken by another: stop."""
    while not build.stopped:
        await asyncio.sleep(LOCK_CHECK_SECONDS)
        if not await asyncio.to_thread(lock.held):
            build.stopped = True
            prog.errors.append(
                f"{prog.source}: the build lock was lost (the database restarted?) and another build holds it "
                "now: this one stopped, the other goes on"
            )
