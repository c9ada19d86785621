"""What both engines' stores share about the sources they hold (`docslice sources`, `docslice remove`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from docs_mcp.store.interface import Scope


class SourceCatalog:
    """The sources a store holds, both engines the same way (`_catalog`: the engine's SQL): their build
    outcomes, the bytes their pages take, and a source forgotten whole."""

    _catalog: Any
    _writes: Any
    reading: Callable[[], AbstractContextManager[Any]]
    write_transaction: Callable[[Callable[[Any], Any]], Any]

    def metas(self, prefix: str) -> list[tuple[str, str]]:
        """The meta values whose key starts with `prefix` (BUILD_META: every source built), by key."""
        with self.reading() as r:
            return [(k, v) for k, v in self._catalog.metas(r.db, prefix)]

    def footprint(self, scope: Scope) -> int:
        """Bytes the scope's pages take as stored."""
        with self.reading() as r:
            return int(self._catalog.footprint(r.db, scope))

    def forget(self, meta_key: str, keys: Sequence[str]) -> int:
        """The pages and a meta value (a source's build outcome) gone in one transaction; how many pages."""

        def work(db: Any) -> int:
            for key in keys:
                self._writes.delete_page(db, key)
            self._catalog.delete_meta(db, meta_key)
            return len(keys)

        return int(self.write_transaction(work))
