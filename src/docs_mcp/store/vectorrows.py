"""Stored section vectors of the `semantic` extra: rows of `page_vectors` (its schema lives in index.py)."""

from __future__ import annotations

import sqlite3

from docs_mcp.store.index import Scope, SiteIndex


def put_vectors(index: SiteIndex, model: str, rows: list[tuple[int, bytes]]) -> int:
    """Store pages' section vectors computed after the fact; a page removed or rewritten meanwhile (a new
    page gets a new id) is skipped. Returns how many were stored."""

    def work(db: sqlite3.Connection) -> int:
        before = db.total_changes
        db.executemany(
            "INSERT OR REPLACE INTO page_vectors(id, model, vecs) SELECT ?, ?, ? "
            "WHERE EXISTS (SELECT 1 FROM pages WHERE id=? AND listed=1)",
            [(pid, model, vecs, pid) for pid, vecs in rows if vecs],
        )
        return db.total_changes - before

    return index.write_transaction(work)


def without_vectors(
    index: SiteIndex, model: str, scope: Scope, limit: int, after: int = 0
) -> list[tuple[int, list[tuple[str, str, str]]]]:
    """Listed pages of a scope with no vectors of `model` (indexed before the extra was installed), by id
    from `after` on, each with its sections' (title, path, text) in order."""
    where, args = scope.sql()
    with index.reading() as db:
        ids = [
            r[0]
            for r in db.execute(
                f"SELECT p.id FROM pages p LEFT JOIN page_vectors v ON v.id=p.id AND v.model=? "
                f"WHERE p.listed=1 AND v.id IS NULL AND p.id>? AND {where} ORDER BY p.id LIMIT ?",
                (model, after, *args, limit),
            )
        ]
        return [
            (
                pid,
                db.execute(
                    "SELECT title, path, text FROM sections WHERE page_id=? ORDER BY ord", (pid,)
                ).fetchall(),
            )
            for pid in ids
        ]


def stored_vectors(db: sqlite3.Connection, model: str, page_ids: list[int]) -> list[tuple[int, bytes]]:
    """Stored section vectors of `model` for these pages (those that have some)."""
    marks = ",".join("?" * len(page_ids))
    return db.execute(
        f"SELECT id, vecs FROM page_vectors WHERE model=? AND id IN ({marks})", (model, *page_ids)
    ).fetchall()
