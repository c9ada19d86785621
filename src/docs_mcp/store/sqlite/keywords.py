"""The SQLite side of a site's keyword indexes: each entry of a generated index page (term → target page and
anchor), stored with the index page that lists it and found by its term's words."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

#: Run by schema.py with the other tables. `keywords.page_id` is the index page listing the entry (its rows
#: go with it); `target` is the key of the page it links to, which may be indexed before or after it.
KEYWORD_TABLES = ("keywords_fts", "keywords")
#: Entries scored in Python looked up this many at a time.
_SLICE = 500
KEYWORD_SCHEMA = """
CREATE TABLE IF NOT EXISTS keywords(
    id INTEGER PRIMARY KEY, page_id INTEGER NOT NULL, target TEXT NOT NULL, anchor TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS keywords_page ON keywords(page_id);
CREATE VIRTUAL TABLE IF NOT EXISTS keywords_fts USING fts5(term, tokenize='unicode61');
"""


def insert_keywords(db: sqlite3.Connection, page_id: int, rows: Sequence[tuple[str, str, str]]) -> None:
    """An index page's entries: (term as indexed tokens, target key, anchor)."""
    for term, target, anchor in rows:
        kid = db.execute(
            "INSERT INTO keywords(page_id, target, anchor) VALUES (?,?,?)", (page_id, target, anchor)
        ).lastrowid
        db.execute("INSERT INTO keywords_fts(rowid, term) VALUES (?,?)", (kid, term))


def delete_keywords(db: sqlite3.Connection, page_id: int) -> None:
    """The entries an index page listed."""
    db.execute(
        "DELETE FROM keywords_fts WHERE rowid IN (SELECT id FROM keywords WHERE page_id=?)", (page_id,)
    )
    db.execute("DELETE FROM keywords WHERE page_id=?", (page_id,))


def keyword_matches(
    db: sqlite3.Connection, expr: str, scope_where: str, scope_args: list[str], limit: int
) -> list[tuple[int, str, str, float]]:
    """(target page id, anchor, term tokens, BM25) of the entries matching `expr` whose target is a listed page
    of the scope, best first (FTS5's bm25 over the whole table: for a scope that is the whole index)."""
    return db.execute(
        "SELECT p.id, k.anchor, f.term, -bm25(keywords_fts) AS score FROM keywords_fts f "
        "JOIN keywords k ON k.id=f.rowid JOIN pages p ON p.key=k.target "
        f"WHERE keywords_fts MATCH ? AND p.listed=1 AND {scope_where} ORDER BY score DESC LIMIT ?",
        (expr, *scope_args, limit),
    ).fetchall()


def scored_entries(
    db: sqlite3.Connection,
    scored: list[tuple[int, float]],
    scope_where: str,
    scope_args: list[str],
    limit: int,
) -> list[tuple[int, str, str, float]]:
    """`keyword_matches` of entries scored elsewhere ((entry id, score), best first): those whose target is a
    listed page of the scope, in that order (looked up a slice at a time: nearly all are kept)."""
    out: list[tuple[int, str, str, float]] = []
    for at in range(0, len(scored), _SLICE):
        part = scored[at : at + _SLICE]
        rows = db.execute(
            "SELECT k.id, p.id, k.anchor, f.term FROM keywords k JOIN keywords_fts f ON f.rowid=k.id "
            f"JOIN pages p ON p.key=k.target WHERE k.id IN ({', '.join('?' * len(part))}) AND p.listed=1 "
            f"AND {scope_where}",
            (*(kid for kid, _ in part), *scope_args),
        )
        found = {kid: (pid, anchor, term) for kid, pid, anchor, term in rows}
        out += [(*found[kid], score) for kid, score in part if kid in found]
        if len(out) >= limit:
            break
    return out[:limit]
