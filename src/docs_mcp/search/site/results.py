"""search_docs's hits kept per index generation: a repeated question is answered without ranking again."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable

from cachetools import TTLCache

from docs_mcp.model.hits import SearchHit
from docs_mcp.settings import RESULT_CACHE_SIZE, RESULT_CACHE_TTL


class ResultCache:
    """Bounded (count and age) map from (generation, what was asked) to the hits; hits are immutable tuples of
    frozen dataclasses, so one list is shared by every caller (each gets its own copy of the list)."""

    def __init__(self, size: int = RESULT_CACHE_SIZE, ttl: float = RESULT_CACHE_TTL):
        self.size = size
        self._hits: TTLCache[Hashable, tuple[SearchHit, ...]] = TTLCache(max(1, size), max(0.001, ttl))
        self._lock = threading.Lock()  # searches run on several threads; cachetools' caches are not safe so
        self.found = 0
        self.computed = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._hits)

    def get(
        self, generation: str | None, asked: Hashable, rank: Callable[[], list[SearchHit]]
    ) -> list[SearchHit]:
        """The hits for `asked` in this generation, ranked by `rank` when not kept (an index that never had a
        write since this version, generation None, is cached too: its first write starts one)."""
        key = (generation, asked)
        with self._lock:
            kept = self._hits.get(key) if self.size > 0 else None
        if kept is not None:
            self.found += 1
            return list(kept)
        hits = rank()
        self.computed += 1
        if self.size > 0:
            with self._lock:
                self._hits[key] = tuple(hits)
        return hits
