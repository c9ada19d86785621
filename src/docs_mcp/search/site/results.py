"""search_docs's hits kept per index generation: a repeated question is answered without ranking again."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any

from cachetools import TTLCache

#: search_docs hits kept per process, per (index generation, sources, query, count): a team's agents ask the
#: same questions, and a repeat costs a lookup instead of a ranking (~20-80 ms of CPU). Any write to the
#: index starts a new generation; an entry is also dropped after RESULT_CACHE_TTL seconds (a writer of an
#: older docslice, which starts no generation, is seen within that time).
RESULT_CACHE_SIZE, RESULT_CACHE_TTL = 1_024, 60.0


class ResultCache:
    """Bounded (count and age) map from (generation, what was asked) to what the ranking gave: immutable (tuples of
    frozen dataclasses), so one value is shared by every caller."""

    def __init__(self, size: int = RESULT_CACHE_SIZE, ttl: float = RESULT_CACHE_TTL):
        self.size = size
        self._hits: TTLCache[Hashable, Any] = TTLCache(max(1, size), max(0.001, ttl))
        self._lock = threading.Lock()  # searches run on several threads; cachetools' caches are not safe so
        self.found = 0
        self.computed = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._hits)

    def get(self, generation: str | None, asked: Hashable, rank: Callable[[], Any]) -> Any:
        """The hits for `asked` in this generation, ranked by `rank` when not kept (an index that never had a
        write since this version, generation None, is cached too: its first write starts one)."""
        key = (generation, asked)
        with self._lock:
            kept = self._hits.get(key) if self.size > 0 else None
        if kept is not None:
            self.found += 1
            return kept
        hits = rank()
        self.computed += 1
        if self.size > 0:
            with self._lock:
                self._hits[key] = hits
        return hits
