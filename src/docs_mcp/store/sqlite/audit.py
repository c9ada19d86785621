"""The SQLite reads of the findability audit (store/postgres/audit.py is PostgreSQL's twin)."""

from __future__ import annotations

import sqlite3

from docs_mcp.store.interface import Scope
from docs_mcp.store.sqlite.inbound import key_hash
from docs_mcp.store.sqlite.scoping import scope_sql


class AuditReads:
    """What `docslice audit` reads besides ranking: the listed pages, and what links say of each."""

    db: sqlite3.Connection

    def listed_pages(self, scope: Scope) -> list[tuple[str, str]]:
        where, args = scope_sql(scope, "key")
        rows = self.db.execute(f"SELECT key, title FROM pages WHERE listed=1 AND {where} ORDER BY key", args)
        return [(key, title) for key, title in rows]

    def inbound_words(self, key: str, limit: int) -> list[str]:
        rows = self.db.execute(
            "SELECT term FROM inbound_words WHERE target=? ORDER BY sources DESC, term LIMIT ?",
            (key_hash(key), limit),
        )
        return [term for (term,) in rows]
