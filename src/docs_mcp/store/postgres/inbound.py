"""The PostgreSQL side of inbound link words (store/sqlite/inbound.py is SQLite's): per target page key and
term, how many pages of the site link to it with that word (`inbound_words`), and per linking page, under its
key's 64-bit hash as keyword entries are, the pairs it gave (`link_words`), which its rewrite or removal takes
back. A page rewritten as it was writes nothing (each update would be a dead row)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from docs_mcp.store.pagerows import link_targets, link_word_changes

if TYPE_CHECKING:
    import psycopg

#: Churned by rewrites: vacuumed by the writer with the others (upkeep.py).
INBOUND_TABLES = ("inbound_words", "link_words")
#: Migration 10 (store/postgres/schema.py). An index migrated has no link words until its pages are written
#: again (a link's text is not stored anywhere else). `inbound_words` churns as `keywords` does.
INBOUND_MIGRATION = """
    CREATE TABLE IF NOT EXISTS inbound_words(
        target text COLLATE "C" NOT NULL, term text COLLATE "C" NOT NULL, sources integer NOT NULL,
        PRIMARY KEY (target, term));
    CREATE TABLE IF NOT EXISTS link_words(source bigint PRIMARY KEY, pairs bytea NOT NULL);
    ALTER TABLE inbound_words SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 200,
        autovacuum_vacuum_cost_delay = 0);
    """


def put_link_words(db: psycopg.Connection, pages: Sequence[tuple[str, Iterable[tuple[str, str]]]]) -> None:
    """Pages' link words (key, (target, term) pairs; none for a page gone), replacing those stored for them:
    their targets' counts change by the difference only, in (target, term) order (no deadlock between two
    writers)."""
    keys = [key for key, _ in pages]
    stored = dict(
        db.execute(
            "SELECT k.key, w.pairs FROM unnest(%s::text[]) AS k(key) "
            "JOIN link_words w ON w.source = hashtextextended(k.key, 0)",
            (keys,),
        ).fetchall()
    )
    changes, blobs = link_word_changes(stored, pages)
    with db.cursor() as cur:
        cur.executemany(
            "INSERT INTO inbound_words(target, term, sources) VALUES (%s,%s,%s) "
            "ON CONFLICT(target, term) DO UPDATE SET sources = inbound_words.sources + excluded.sources",
            changes,
        )
        cur.executemany(
            "DELETE FROM inbound_words WHERE target=%s AND term=%s AND sources <= 0",
            [(target, term) for target, term, n in changes if n < 0],
        )
        cur.executemany(
            "DELETE FROM link_words WHERE source=hashtextextended(%s, 0)",
            [(key,) for key, blob in blobs if blob is None],
        )
        cur.executemany(
            "INSERT INTO link_words VALUES (hashtextextended(%s, 0), %s) "
            "ON CONFLICT(source) DO UPDATE SET pairs=excluded.pairs",
            [b for b in blobs if b[1] is not None],
        )


def inbound_terms(
    db: psycopg.Connection, page_ids: Sequence[int], terms: Sequence[str]
) -> list[tuple[int, str]]:
    """(page id, term) for each of these terms that links from other pages give each of these pages."""
    if not page_ids or not terms:
        return []
    return db.execute(
        "SELECT p.id, w.term FROM pages p JOIN inbound_words w ON w.target = p.key "
        "WHERE p.id = ANY(%s) AND w.term = ANY(%s::text[])",
        (list(page_ids), list(terms)),
    ).fetchall()


def links_from(db: psycopg.Connection, page_ids: Sequence[int]) -> dict[int, dict[str, frozenset[str]]]:
    """Per page of these: the pages its links point at (keys), each with the terms those links say."""
    if not page_ids:
        return {}
    rows = db.execute(
        "SELECT p.id, w.pairs FROM pages p JOIN link_words w ON w.source = hashtextextended(p.key, 0) "
        "WHERE p.id = ANY(%s)",
        (list(page_ids),),
    ).fetchall()
    return {pid: link_targets(blob) for pid, blob in rows}
