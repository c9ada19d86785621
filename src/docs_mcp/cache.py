"""Converted documents in memory (LRU + TTL), with single-flight so concurrent calls fetch a page once."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from cachetools import TTLCache

from .document import Document


class DocumentCache:
    """Maps a page key to its immutable Document; a hit does no parsing and copies nothing."""

    def __init__(self, maxsize: int, ttl: float):
        self._docs: TTLCache[str, Document] = TTLCache(maxsize=max(1, maxsize), ttl=max(0.001, ttl))
        self._inflight: dict[str, asyncio.Future[Document]] = {}
        self.hits = 0
        self.misses = 0

    def peek(self, key: str) -> Document | None:
        return self._docs.get(key)

    def put(self, key: str, doc: Document) -> None:
        self._docs[key] = doc

    def documents(self) -> list[Document]:
        """Documents currently cached (expired ones excluded)."""
        self._docs.expire()
        return list(self._docs.values())

    async def get(self, key: str, load: Callable[[], Awaitable[Document]]) -> Document:
        doc = self._docs.get(key)
        if doc is not None:
            self.hits += 1
            return doc
        pending = self._inflight.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        self.misses += 1
        future: asyncio.Future[Document] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            doc = await load()
        except asyncio.CancelledError:
            future.cancel()
            raise
        except BaseException as exc:
            future.set_exception(exc)
            # Waiters get the error; nobody else may be listening, so mark it retrieved.
            future.exception()
            raise
        finally:
            self._inflight.pop(key, None)
        future.set_result(doc)
        self._docs[key] = doc
        return doc
