"""A build's page writes, grouped: the pages its workers finish while one transaction is written go together in
the next (group commit), so a commit and its full-text segment are paid per batch, not per page. And the
build's lease, renewed while it runs."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from concurrent.futures import Executor

from docs_mcp.environment import env
from docs_mcp.errors import IndexUnavailable
from docs_mcp.model.progress import Outcome
from docs_mcp.settings import mechanism_on
from docs_mcp.store.interface import Store
from docs_mcp.store.pagerows import PreparedPage

#: Seconds a running build's lease lasts, renewed every quarter of that (DOCSLICE_BUILD_LEASE): a build whose
#: lease ran out died (killed, its machine lost) and answers say its pages may be missing; one alive is no alarm.
#: Read with the reader's clock: machines sharing an index need clocks within this of each other.
BUILD_LEASE = float(env("BUILD_LEASE", "120") or "120")
#: Pages per transaction at most: a writer of another process waits for one transaction at a time.
MAX_BATCH = 32


class PageWriter:
    """Writes prepared pages on the store's thread; `write` returns once its page is committed."""

    def __init__(self, index: Store, store: Executor):
        self.index = index
        self.store = store
        self._pending: list[tuple[PreparedPage, asyncio.Future[None]]] = []
        self._flusher: asyncio.Task[None] | None = None

    async def write(self, page: PreparedPage) -> None:
        loop = asyncio.get_running_loop()
        if not mechanism_on("batch_writes"):
            return await loop.run_in_executor(self.store, self.index.write, page)
        done: asyncio.Future[None] = loop.create_future()
        self._pending.append((page, done))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush())
        await done

    async def _flush(self) -> None:
        loop = asyncio.get_running_loop()
        while self._pending:
            batch, self._pending = self._pending[:MAX_BATCH], self._pending[MAX_BATCH:]
            try:
                await loop.run_in_executor(self.store, self.index.write_many, [p for p, _ in batch])
                outcomes: list[BaseException | None] = [None] * len(batch)
            except Exception:  # one page may be the cause: each alone, so that the others are stored
                outcomes = [await self._alone(loop, page) for page, _ in batch]
            for (_, done), exc in zip(batch, outcomes, strict=True):
                if done.done():  # its waiter was cancelled
                    continue
                if exc is None:
                    done.set_result(None)
                else:
                    done.set_exception(exc)

    async def _alone(self, loop: asyncio.AbstractEventLoop, page: PreparedPage) -> BaseException | None:
        try:
            await loop.run_in_executor(self.store, self.index.write, page)
        except Exception as exc:
            return exc
        return None


async def hold_lease(
    index: Store,
    store: Executor,
    meta: str,
    unfinished: Callable[[float], Outcome],
    every: float = BUILD_LEASE / 4,
) -> None:
    """A running build's unfinished outcome and lease stored now, then again every `every` seconds until cancelled
    (0: once): readers tell the build, alive, from one that died (its lease runs out)."""
    loop = asyncio.get_running_loop()
    while True:
        with contextlib.suppress(
            IndexUnavailable
        ):  # the next renewal may pass; the build's end says the rest
            await loop.run_in_executor(
                store, index.set_meta, meta, unfinished(time.time() + BUILD_LEASE).to_json()
            )
        if not every:
            return
        await asyncio.sleep(every)
