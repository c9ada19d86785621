"""The PostgreSQL reads of the findability audit (store/sqlite/audit.py is SQLite's twin)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_mcp.store.interface import Scope
from docs_mcp.store.postgres.rank import scope_sql

if TYPE_CHECKING:
    import psycopg


class AuditReads:
    """What `docslice audit` reads besides ranking: the listed pages, and what links say of each."""

    db: psycopg.Connection

    def listed_pages(self, scope: Scope) -> list[tuple[str, str]]:
        where, args = scope_sql(scope, "key")
        rows = self.db.execute(f"SELECT key, title FROM pages WHERE listed AND {where} ORDER BY key", args)
        return [(key, title) for key, title in rows.fetchall()]

    def inbound_words(self, key: str, limit: int) -> list[str]:
        rows = self.db.execute(
            "SELECT term FROM inbound_words WHERE target=%s ORDER BY sources DESC, term LIMIT %s",
            (key, limit),
        )
        return [term for (term,) in rows.fetchall()]
