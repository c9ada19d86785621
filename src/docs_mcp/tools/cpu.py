"""CPU work off the event loop, in a bounded pool of its own, so slow parses never take the threads that
cheap calls need (asyncio's default pool has cores + 4 threads, and six slow parses filled it)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class CPUPool:
    """A fixed number of worker threads; a job whose caller gave up before it started never runs."""

    def __init__(self, workers: int, name: str = "docs-mcp-parse"):
        self.workers = max(1, workers)
        self.name = name
        self._pool: ThreadPoolExecutor | None = None

    async def run(self, fn: Callable[..., T], *args: object) -> T:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix=self.name)
        # wrap_future cancels the job when the awaiting task is cancelled (a deadline) and it has not started.
        return await asyncio.wrap_future(self._pool.submit(fn, *args))

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
