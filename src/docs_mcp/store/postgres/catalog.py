"""The PostgreSQL index's sources as `docslice sources` and `docslice remove` see them: build outcomes, bytes."""

from __future__ import annotations

import psycopg

from docs_mcp.store.interface import Scope
from docs_mcp.store.postgres.rank import scope_sql


def metas(db: psycopg.Connection, prefix: str) -> list[tuple[str, str]]:
    """The meta values whose key starts with `prefix`, by key."""
    return db.execute(
        'SELECT key, value FROM meta WHERE starts_with(key, %s) ORDER BY key COLLATE "C"', (prefix,)
    ).fetchall()


def footprint(db: psycopg.Connection, scope: Scope) -> int:
    """Bytes the scope's pages take as stored: documents, links, sections' text and vectors (not the
    full-text indexes and postings, which grow with them)."""
    where, args = scope_sql(scope)
    row = db.execute(
        f"""SELECT
            (SELECT coalesce(sum(octet_length(d.doc) + coalesce(octet_length(d.links), 0)), 0)
               FROM pages p JOIN page_data d ON d.id = p.id WHERE {where})
          + (SELECT coalesce(sum(octet_length(s.text) + octet_length(s.title) + octet_length(s.path)), 0)
               FROM pages p JOIN sections s ON s.page_id = p.id WHERE {where})
          + (SELECT coalesce(sum(octet_length(v.vecs)), 0)
               FROM pages p JOIN page_vectors v ON v.id = p.id WHERE {where})""",
        args,
    ).fetchone()
    return int(row[0])


def delete_meta(db: psycopg.Connection, key: str) -> None:
    db.execute("DELETE FROM meta WHERE key=%s", (key,))
