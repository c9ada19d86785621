"""Converted documents in memory (LRU + TTL), with single-flight so concurrent calls fetch a page once."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from cachetools import TTLCache

from docs_mcp.model.document import Document
from docs_mcp.settings import CACHE_MB

#: Bytes a cached page takes per character of its sections (HTML, markdown source, plain text) once the
#: tools have read it: median 9.9 (p25 8.4, p75 12.4) over the Python docs' first 200 pages read cold with
#: search_in_doc + get_doc_toc (tracemalloc after gc, pages over 20,000 chars).
CACHED_BYTES_PER_CHAR = 10


class _Pages(TTLCache):
    """LRU + TTL bounded by the pages' estimated bytes (cachetools' size) and by their count as well."""

    def __init__(self, count: int, size: int, ttl: float):
        super().__init__(maxsize=size, ttl=ttl, getsizeof=lambda doc: min(weight(doc), size))
        self.count = count

    def __setitem__(self, key: str, value: Document) -> None:
        super().__setitem__(key, value)
        while len(self) > self.count:
            self.popitem()


def weight(doc: Document) -> int:
    """The memory a cached page takes once read: its sections' characters times the bytes each costs with
    the tools' memos (markdown, BM25 index, passages; measured, see CACHED_BYTES_PER_CHAR)."""
    chars = sum(len(s.body_html) + len(s.body_md or "") + len(s.text) for s in doc.sections)
    return max(1, chars * CACHED_BYTES_PER_CHAR)


class DocumentCache:
    """Maps a page key to its immutable Document; a hit does no parsing and copies nothing."""

    def __init__(self, maxsize: int, ttl: float, max_bytes: int = CACHE_MB << 20):
        self._docs = _Pages(max(1, maxsize), max(1, max_bytes), max(0.001, ttl))
        self._inflight: dict[str, asyncio.Task[Document]] = {}
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
        task = self._inflight.get(key)
        if task is None:
            self.misses += 1
            # The load runs in a task of its own: one caller giving up must not cancel everyone waiting.
            task = asyncio.ensure_future(self._load(key, load))
            task.add_done_callback(_retrieve)
            self._inflight[key] = task
        return await asyncio.shield(task)

    async def _load(self, key: str, load: Callable[[], Awaitable[Document]]) -> Document:
        try:
            doc = await load()
            self._docs[key] = doc
            return doc
        finally:
            self._inflight.pop(key, None)


def _retrieve(task: asyncio.Task) -> None:
    """Mark a failed load's exception as seen (callers that gave up no longer await it)."""
    if not task.cancelled():
        task.exception()
