"""Semantic candidates: every listed page's section vectors scanned for the query, not only the pages its words
found. A question that paraphrases its page ("take the n-th character by position") shares no selective word
with it; the page whose best section is nearest the question still is, however many small pages share a word.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from docs_mcp.search.semantic.vectors import block_maxima, nearest_row
from docs_mcp.store.interface import Reads, Scope
from docs_mcp.store.vectors import unpack_vectors

if TYPE_CHECKING:
    import numpy as np

#: Pages whose vectors are read per store read while the scan is filled (bounded statement size).
READ_BATCH = 500
#: Seconds between two checks of which pages have vectors: reading 5,000 ids costs more than the scan itself
#: (30-80 ms on a busy machine), and a page a refresh removed meanwhile is only a candidate the hits skip.
RECHECK_SECONDS = 10.0
#: The scan reads only a vector's first dimensions (Matryoshka: they carry the most) to pick candidates, then
#: scores those pages at full size: half the memory read per search (4.3 -> 2.7 ms on JDK 17's 108,000
#: sections, with the candidates scored in one product).
COARSE_DIMS = 64
#: Candidate pages per page wanted, scored again at full size.
COARSE_OVERSAMPLE = 4


class SectionScan:
    """All section vectors of a scope in one float32 matrix, kept per (model, scope) and brought up to date
    with the pages that have vectors: a page indexed or removed since is added or dropped, never re-read.

    Past `max_bytes` (a site of more than ~260,000 sections at 128 dimensions) there is no scan: `nearest`
    answers nothing.
    """

    def __init__(self, max_bytes: int, recheck_seconds: float = RECHECK_SECONDS):
        self.max_bytes = max_bytes
        self.recheck_seconds = recheck_seconds
        self._checked = 0.0
        self._lock = threading.Lock()
        self._key: tuple[str, Scope] | None = None
        self._pages: dict[int, np.ndarray] = {}
        self._ids: tuple[int, ...] = ()
        #: The page ids the store had at the last sync (a page whose blob is unusable is in it, not in _ids).
        self._seen: tuple[int, ...] = ()
        self._matrix: np.ndarray | None = None
        self._starts: np.ndarray | None = None

    def nearest(
        self, reads: Reads, model: str, dim: int, qvec: np.ndarray, scope: Scope, n: int
    ) -> dict[int, float]:
        """The `n` pages of the scope whose best section is nearest the query: page id → that cosine."""
        view = self.view(reads, model, dim, scope)
        return {} if view is None else view.nearest(qvec, n)

    def view(self, reads: Reads, model: str, dim: int, scope: Scope) -> ScanView | None:
        """The matrix brought up to the snapshot's pages, held for one search: the product needs no store
        and no lock, so it can run beside the search's text queries. None when there is no scan."""
        with self._lock:
            if not self._sync(reads, model, dim, scope) or self._matrix is None or self._starts is None:
                return None
            return ScanView(self._matrix, self._starts, self._ids, self._pages, dim)

    def rows(self, page_ids: Sequence[int]) -> dict[int, int]:
        """Per scanned page: how many rows (sections, then entries) its best cosine was the maximum of."""
        return {pid: block.shape[0] for pid in page_ids if (block := self._pages.get(pid)) is not None}

    def best_row(self, page_id: int, qvec: np.ndarray) -> int | None:
        """Which of a scanned page's rows (a section's `ord`, or past them an entry) is nearest the query; None
        if not scanned."""
        block = self._pages.get(page_id)
        return None if block is None else nearest_row(block, qvec)

    def _sync(self, reads: Reads, model: str, dim: int, scope: Scope) -> bool:
        """Bring the matrix up to the snapshot's pages; False when there are none or they exceed the cap."""
        import numpy as np

        if (model, scope) != self._key:
            self._key, self._pages, self._ids, self._seen, self._matrix = (model, scope), {}, (), (), None
            self._checked = 0.0
        now = time.monotonic()
        if now - self._checked < self.recheck_seconds:
            return self._matrix is not None
        self._checked = now
        ids = tuple(reads.vector_pages(model, scope))
        if ids == self._seen:
            return self._matrix is not None
        self._seen = ids
        # At least one section a page: over the cap for sure.
        if len(ids) * _section_bytes(dim) > self.max_bytes:
            return False
        wanted = set(ids)
        self._pages = {p: m for p, m in self._pages.items() if p in wanted}
        missing = [p for p in ids if p not in self._pages]
        for start in range(0, len(missing), READ_BATCH):
            for pid, blob in reads.vectors(model, missing[start : start + READ_BATCH]):
                if (matrix := unpack_vectors(blob, dim)) is not None:
                    self._pages[pid] = matrix.astype(np.float16)  # half the memory of float32
        kept = tuple(p for p in ids if p in self._pages)
        if sum(self._pages[p].shape[0] for p in kept) * _section_bytes(dim) > self.max_bytes or not kept:
            self._ids, self._matrix = (), None
            return False
        blocks: Sequence[np.ndarray] = [self._pages[p] for p in kept]
        self._matrix = np.ascontiguousarray(
            np.concatenate(blocks)[:, : min(dim, COARSE_DIMS)], dtype=np.float32
        )
        self._starts = np.cumsum([0] + [b.shape[0] for b in blocks[:-1]])
        self._ids = kept
        return True


@dataclass(frozen=True)
class ScanView:
    """The scan's matrix as one search found it (a later sync replaces the scan's arrays, never changes these)."""

    matrix: np.ndarray
    starts: np.ndarray
    ids: tuple[int, ...]
    pages: dict[int, np.ndarray]
    dim: int

    def nearest(self, qvec: np.ndarray, n: int) -> dict[int, float]:
        """The `n` pages whose best section is nearest the query: page id → that cosine."""
        import numpy as np

        # einsum, not `@`: one thread, no BLAS spin-up on a busy machine (see semantic.block_maxima).
        head = qvec[: self.matrix.shape[1]]
        best = np.maximum.reduceat(np.einsum("ij,j->i", self.matrix, head), self.starts)
        if self.matrix.shape[1] >= self.dim:
            return {self.ids[i]: float(best[i]) for i in np.argsort(-best)[:n]}
        wanted = min(len(self.ids), n * COARSE_OVERSAMPLE)
        picked = (
            np.argpartition(-best, wanted - 1)[:wanted] if wanted < len(self.ids) else range(len(self.ids))
        )
        pids = [self.ids[i] for i in picked]
        exact = block_maxima([self.pages[p] for p in pids], qvec)
        return {pids[i]: float(exact[i]) for i in np.argsort(-exact)[:n]}


def _section_bytes(dim: int) -> int:
    """Memory a section takes in the scan: its vector (float16 in memory) and its float32 coarse part."""
    return dim * 2 + min(dim, COARSE_DIMS) * 4
