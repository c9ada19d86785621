"""The PostgreSQL reads of the index's state: meta values, page counts and fetch times, once per snapshot."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from docs_mcp.store.interface import PageState, Scope
from docs_mcp.store.postgres.rank import scope_sql

if TYPE_CHECKING:
    import psycopg

#: Meta values up to this many characters are read with the others; a longer one (a prior) when asked.
_META_SHORT = 4096
_SHORT_META = "SELECT key, CASE WHEN length(value) <= %s THEN value END FROM meta"


class StateReads:
    """What a status line and a ranking's statistics read of one snapshot: each at most once (every search_docs
    asks for the generation, each source's last build, page count and newest fetch: a round trip each cost
    both processes CPU)."""

    def __init__(self, db: psycopg.Connection):
        self.db = db
        #: This snapshot's meta rows, read at the first ask: key -> value, None when longer than _META_SHORT.
        self._meta: dict[str, str | None] | None = None
        #: Per scope condition: (pages, newest fetch), read together.
        self._census: dict[tuple, tuple[int, float]] = {}

    def _all(self, sql: str, args: Sequence[object] | dict = ()) -> list[tuple]:
        return self.db.execute(sql, args).fetchall()

    def _one(self, sql: str, args: Sequence[object] | dict = ()) -> tuple | None:
        return self.db.execute(sql, args).fetchone()

    def meta(self, key: str) -> str | None:
        """A meta value; every short one read in one statement per snapshot."""
        if self._meta is None:
            self._meta = dict(self._all(_SHORT_META, (_META_SHORT,)))
        if key not in self._meta:
            return None
        value = self._meta[key]
        if value is None:  # long (a source's learned prior): read alone, when asked
            row = self._one("SELECT value FROM meta WHERE key=%s", (key,))
            return row[0] if row else None
        return value

    def page_count(self, scope: Scope | None = None) -> int:
        return self._counted(scope)[0]

    def _counted(self, scope: Scope | None) -> tuple[int, float]:
        """(pages, newest fetch) under the scope, in one statement per snapshot."""
        where, args = scope_sql(scope, "key") if scope is not None else ("true", {})
        key = (where, tuple(sorted(args.items())))
        if key not in self._census:
            n, newest = self._one(f"SELECT count(*), max(fetched_at) FROM pages WHERE {where}", args)
            self._census[key] = (n, newest or 0.0)
        return self._census[key]

    def section_count(self) -> int:
        return self._one("SELECT count(*) FROM sections")[0]

    def newest(self, scope: Scope) -> float:
        return self._counted(scope)[1]

    def older_than(self, scope: Scope, when: float) -> int:
        where, args = scope_sql(scope, "key")
        sql = f"SELECT count(*) FROM pages WHERE {where} AND fetched_at < %(before)s"
        return self._one(sql, {**args, "before": when})[0]

    def pages(self, scope: Scope) -> list[PageState]:
        where, args = scope_sql(scope, "key")
        rows = self._all(f"SELECT key, fetched_at, etag, last_modified FROM pages WHERE {where}", args)
        return [PageState(k, f, e or "", m or "") for k, f, e, m in rows]
