"""The SQLite side of inbound link words (store/postgres/inbound.py is PostgreSQL's): per target page key and
term, how many pages of the site link to it with that word (`inbound_words`, the key as its `key_hash`), and
per linking page the pairs it gave (`page_data.words`, schema 15; a table of their own before), which its
rewrite or removal takes back. A page rewritten as it was changes no count."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from hashlib import blake2b

from docs_mcp.store.pagerows import link_targets, link_word_changes

#: Run by schema.py with the other tables (schema 12; `IN_PLACE` adds it to a schema 11 file). A target is a
#: page key as links name it (the page may be indexed before or after the pages linking to it), stored as its
#: `key_hash` (schema 14): 8 bytes, not a ~70-char key on each of its terms' rows.
INBOUND_TABLES = ("inbound_words",)
INBOUND_WORDS = """
CREATE TABLE IF NOT EXISTS inbound_words(
    target INTEGER NOT NULL, term TEXT NOT NULL, sources INTEGER NOT NULL, PRIMARY KEY (target, term))
    WITHOUT ROWID"""
INBOUND_SCHEMA = f"{INBOUND_WORDS};\n"


def stored_link_words(db: sqlite3.Connection, keys: Sequence[str]) -> dict[str, bytes]:
    """The link words stored with these pages (`pack_link_words` blobs), by key: read before their rows go."""
    sql = f"SELECT p.key, d.words FROM pages p JOIN page_data d ON d.id=p.id WHERE p.key IN ({marks(keys)})"
    return {key: blob for key, blob in db.execute(sql, list(keys)) if blob is not None}


def put_link_words(
    db: sqlite3.Connection, stored: dict[str, bytes], pages: Sequence[tuple[str, Iterable[tuple[str, str]]]]
) -> dict[str, bytes | None]:
    """Pages' link words (key, (target, term) pairs; none for a page gone), replacing `stored`
    (`stored_link_words`): their targets' counts change by the difference only. Returns each page's blob for
    its `page_data.words` (None for none)."""
    changes, blobs = link_word_changes(stored, pages)
    # A batch's pairs name a few hundred targets, each with many terms: each hashed once. In the table's order
    # (hash, term), the writes walk its B-tree forward instead of jumping about it.
    hashes = {target: key_hash(target) for target in {target for target, _, _ in changes}}
    changes = sorted((hashes[target], term, n) for target, term, n in changes)
    db.executemany(
        "INSERT INTO inbound_words(target, term, sources) VALUES (?,?,?) "
        "ON CONFLICT(target, term) DO UPDATE SET sources = sources + excluded.sources",
        changes,
    )
    db.executemany(
        "DELETE FROM inbound_words WHERE target=? AND term=? AND sources <= 0",
        [(target, term) for target, term, n in changes if n < 0],
    )
    return {key: stored.get(key) for key, _ in pages} | dict(blobs)


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
        f"SELECT id, words FROM page_data WHERE id IN ({marks(page_ids)}) AND words IS NOT NULL",
        tuple(page_ids),
    ).fetchall()
    return {pid: link_targets(blob) for pid, blob in rows}


def marks(values: Sequence[object]) -> str:
    """The placeholders of an `IN (…)` list of these values."""
    return ",".join("?" * len(values))
