"""Section vectors in memory: the pages a server has ranked, and the cosines of their rows with a query."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from docs_mcp.store.vectors import unpack_vectors

if TYPE_CHECKING:
    import numpy as np


class VectorCache:
    """Section vectors of the pages a server has ranked, read from the index per page on first use.

    Never a load of the whole index: a refresh writing pages costs a search nothing. A page id is never
    reused, so an entry stays right for as long as the page exists; the cache is emptied past `max_bytes`.
    """

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self._pages: dict[tuple[str, int], np.ndarray] = {}
        self._bytes = 0
        self._lock = threading.Lock()

    def missing(self, model: str, page_ids: Sequence[int]) -> list[int]:
        return [p for p in page_ids if (model, p) not in self._pages]

    def add(self, model: str, dim: int, rows: Sequence[tuple[int, bytes]]) -> None:
        """Stored vectors (page id, blob); a blob that is not whole vectors of this size is skipped."""
        with self._lock:
            for pid, blob in rows:
                matrix = unpack_vectors(blob, dim)
                if matrix is None:
                    continue
                if self._bytes + matrix.nbytes > self.max_bytes:
                    self._pages.clear()
                    self._bytes = 0
                self._pages[(model, pid)] = matrix
                self._bytes += matrix.nbytes

    def cosines(self, model: str, qvec: np.ndarray, page_ids: Sequence[int]) -> dict[int, float]:
        """Per page with vectors: its best section's cosine with the query."""

        found = [(pid, block) for pid in page_ids if (block := self._pages.get((model, pid))) is not None]
        if not found:
            return {}
        best = block_maxima([b for _, b in found], qvec)
        return {pid: float(c) for (pid, _), c in zip(found, best.tolist(), strict=True)}

    def rows(self, model: str, page_ids: Sequence[int]) -> dict[int, int]:
        """Per cached page: how many rows (sections, then entries) its best cosine was the maximum of."""
        return {
            pid: block.shape[0] for pid in page_ids if (block := self._pages.get((model, pid))) is not None
        }

    def best_row(self, model: str, qvec: np.ndarray, page_id: int) -> int | None:
        """Which of a cached page's rows (a section's `ord`, or past them an entry) is nearest the query; None if
        not cached."""
        block = self._pages.get((model, page_id))
        return None if block is None else nearest_row(block, qvec)


# einsum, not `@`, below: a matrix-vector product goes to multi-threaded BLAS, whose threads spin for
# milliseconds on a busy machine (10 ms on Node.js's 4,000-section all.html under load).
def block_maxima(blocks: Sequence[np.ndarray], qvec: np.ndarray) -> np.ndarray:
    """Each block's (one page's section vectors) best cosine with the query, in one product over all their
    rows: a product per page cost twice as much (80 pages, ~1.5 ms)."""
    import numpy as np

    starts = np.cumsum([0] + [b.shape[0] for b in blocks[:-1]])
    rows = np.concatenate(blocks).astype(np.float32, copy=False)
    return np.maximum.reduceat(np.einsum("ij,j->i", rows, qvec), starts)


def nearest_row(block: np.ndarray, qvec: np.ndarray) -> int:
    """The row of one page's vectors nearest the query: a section's `ord`, or past the sections an entry's."""
    import numpy as np

    return int(np.argmax(np.einsum("ij,j->i", block.astype(np.float32, copy=False), qvec)))
