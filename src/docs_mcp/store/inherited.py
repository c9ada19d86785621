"""What both engines' stores inherit: the PageReads calls each in a snapshot, and the writes they make the
same way through their engine's writes module."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from docs_mcp.store.interface import PageState, Reads, Scope

if TYPE_CHECKING:
    from docs_mcp.model.document import Document


class SnapshotPageReads:
    """The PageReads of a store (both engines' inherit them): outside a `reading()` block each call reads a
    snapshot of its own; inside one, that block's."""

    reading: Callable[[], AbstractContextManager[Reads]]

    def meta(self, key: str) -> str | None:
        with self.reading() as r:
            return r.meta(key)

    def page_count(self, scope: Scope | None = None) -> int:
        """Pages in the index, or in a scope (`Scope.of([source])`: one source's pages)."""
        with self.reading() as r:
            return r.page_count(scope)

    def section_count(self) -> int:
        with self.reading() as r:
            return r.section_count()

    def newest(self, scope: Scope) -> float:
        with self.reading() as r:
            return r.newest(scope)

    def older_than(self, scope: Scope, when: float) -> int:
        with self.reading() as r:
            return r.older_than(scope, when)

    def pages(self, scope: Scope) -> list[PageState]:
        with self.reading() as r:
            return r.pages(scope)

    def links(self, key: str) -> list[str]:
        with self.reading() as r:
            return r.links(key)

    def load_document(self, key: str) -> Document | None:
        with self.reading() as r:
            return r.load_document(key)

    def headings(self, key: str) -> list[tuple[int, str, str]]:
        with self.reading() as r:
            return r.headings(key)

    def without_vectors(self, model: str, scope: Scope, limit: int, after: int = 0) -> list[tuple[int, str]]:
        with self.reading() as r:
            return r.without_vectors(model, scope, limit, after)


class DelegatedWrites:
    """The writes both engines' stores make the same way (a 304's touch, a meta value, vectors filled in later):
    their engine's `writes` function (`_writes`: its module) in one `write_transaction`."""

    _writes: Any
    write_transaction: Callable[[Callable[[Any], Any]], Any]

    def touch(self, key: str, fetched_at: float | None = None) -> None:
        """A 304: the stored copy is fresh again."""
        when = fetched_at or time.time()
        self.write_transaction(lambda db: self._writes.touch_page(db, key, when))

    def set_meta(self, key: str, value: str) -> None:
        self.write_transaction(lambda db: self._writes.put_meta(db, key, value))

    def put_vectors(self, model: str, rows: list[tuple[int, bytes]]) -> int:
        """Section vectors computed after the fact (see the engine's writes.put_vectors); how many were stored."""
        return int(self.write_transaction(lambda db: self._writes.put_vectors(db, model, rows)))
