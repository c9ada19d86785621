"""The SQLite index's sources as `docslice sources` and `docslice remove` see them: build outcomes, bytes."""

from __future__ import annotations

import sqlite3

from docs_mcp.store.interface import Scope
from docs_mcp.store.sqlite.scoping import _TOP, scope_sql


def metas(db: sqlite3.Connection, prefix: str) -> list[tuple[str, str]]:
    """The meta values whose key starts with `prefix`, by key."""
    return db.execute(
        "SELECT key, value FROM meta WHERE key >= ? AND key < ? ORDER BY key", (prefix, prefix + _TOP)
    ).fetchall()


def footprint(db: sqlite3.Connection, scope: Scope) -> int:
    """Bytes the scope's pages take as stored: documents, links, sections' text and vectors (not the
    full-text indexes, which grow with them)."""
    where, args = scope_sql(scope)
    return db.execute(
        f"""SELECT
            (SELECT coalesce(sum(length(d.doc) + coalesce(length(d.words), 0)), 0)
               FROM pages p JOIN page_data d ON d.id = p.id WHERE {where})
          + (SELECT coalesce(sum(length(s.title)), 0)
               FROM pages p JOIN sections s ON s.page_id = p.id WHERE {where})
          + (SELECT coalesce(sum(length(v.vecs)), 0) FROM pages p JOIN page_vectors v ON v.id = p.id WHERE {where})""",
        args * 3,
    ).fetchone()[0]


def delete_meta(db: sqlite3.Connection, key: str) -> None:
    db.execute("DELETE FROM meta WHERE key=?", (key,))
