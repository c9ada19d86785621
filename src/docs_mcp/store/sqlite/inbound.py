"""The SQLite side of inbound link words (store/postgres/inbound.py is PostgreSQL's): per target page key and
term, how many pages of the site link to it with that word (`inbound_words`, the key as its `key_hash`), and
per linking page the pairs it gave (`link_words`), which its rewrite or removal takes back. A page rewritten as
it was writes nothing."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from hashlib import blake2b

from docs_mcp.store.pagerows import link_targets, link_word_changes

#: Run by schema.py with the other tables (schema 12; `IN_PLACE` adds them to a schema 11 file). A target is a
#: page key as links name it (the page may be indexed before or after the pages linking to it), stored as its
#: `key_hash` (schema 14): 8 bytes, not a ~70-char key on each of its terms' rows.
INBOUND_TABLES = ("inbound_words", "link_words")
INBOUND_WORDS = """
CREATE TABLE IF NOT EXISTS inbound_words(
    target INTEGER NOT NULL, term TEXT NOT NULL, sources INTEGER NOT NULL, PRIMARY KEY (target, term))
    WITHOUT ROWID"""
INBOUND_SCHEMA = f"""{INBOUND_WORDS};
CREATE TABLE IF NOT EXISTS link_words(source TEXT PRIMARY KEY, pairs BLOB NOT NULL) WITHOUT ROWID"""


def put_link_words(db: sqlite3.Connection, pages: Sequence[tuple[str, Iterable[tuple[str, str]]]]) -> None:
    """Pages' link words (key, (target, term) pairs; none for a page gone), replacing those stored for them:
    their targets' counts change by the difference only."""
    keys = [key for key, _ in pages]
    stored = dict(db.execute(f"SELECT source, pairs FROM link_words WHERE source IN ({marks(keys)})", keys))
    changes, blobs = link_word_changes(stored, pages)
    changes = [(key_hash(target), term, n) for target, term, n in changes]
    db.executemany(
        "INSERT INTO inbound_words(target, term, sources) VALUES (?,?,?) "
        "ON CONFLICT(target, term) DO UPDATE SET sources = sources + excluded.sources",
        changes,
    )
    db.executemany(
        "DELETE FROM inbound_words WHERE target=? AND term=? AND sources <= 0",
        [(target, term) for target, term, n in changes if n < 0],
    )
    db.executemany("DELETE FROM link_words WHERE source=?", [(key,) for key, blob in blobs if blob is None])
    db.executemany("INSERT OR REPLACE INTO link_words VALUES (?,?)", [b for b in blobs if b[1] is not None])


def inbound_terms(
    db: sqlite3.Connection, page_ids: Sequence[int], terms: Sequence[str]
) -> list[tuple[int, str]]:
    """(page id, term) for each of these terms that links from other pages give each of these pages."""
    if not page_ids or not terms:
        return []
    keys = db.execute(f"SELECT id, key FROM pages WHERE id IN ({marks(page_ids)})", list(page_ids))
    pages = {key_hash(key): pid for pid, key in keys}
    rows = db.execute(
        f"SELECT target, term FROM inbound_words WHERE target IN ({marks(pages)}) AND term IN ({marks(terms)})",
        (*pages, *terms),
    )
    return [(pages[target], term) for target, term in rows]


def key_hash(key: str) -> int:
    """A page key as `inbound_words` holds it: the first 8 bytes of its BLAKE2b, a signed 64-bit integer (two
    keys of one index share one with a chance of ~1e-11 at 10^4 pages)."""
    return int.from_bytes(blake2b(key.encode("utf-8"), digest_size=8).digest(), "big", signed=True)


def links_from(db: sqlite3.Connection, page_ids: Sequence[int]) -> dict[int, dict[str, frozenset[str]]]:
    """Per page of these: the pages its links point at (keys), each with the terms those links say."""
    if not page_ids:
        return {}
    rows = db.execute(
        "SELECT p.id, w.pairs FROM pages p JOIN link_words w ON w.source = p.key "
        f"WHERE p.id IN ({marks(page_ids)})",
        tuple(page_ids),
    ).fetchall()
    return {pid: link_targets(blob) for pid, blob in rows}


def marks(values: Sequence[object]) -> str:
    """The placeholders of an `IN (…)` list of these values."""
    return ",".join("?" * len(values))
