"""Every write of the SQLite index, each run inside the caller's write transaction (`SiteIndex.write_transaction`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from docs_mcp.store.interface import GENERATION_META
from docs_mcp.store.pagerows import FtsRow, PreparedPage, fts_rows, term_counts
from docs_mcp.store.pagestream import unpack_places
from docs_mcp.store.sqlite.copies import digest_key
from docs_mcp.store.sqlite.inbound import put_link_words, stored_link_words
from docs_mcp.store.sqlite.keywords import delete_keywords, insert_keywords


def insert_pages(db: sqlite3.Connection, pages: Sequence[PreparedPage]) -> None:
    """Insert or replace prepared pages, their vocabulary counts added together in one statement and their link
    words' counts together too (the pages of a batch share their navigation's links)."""
    counts: dict[str, int] = {}
    keys = [page.key for page in pages]
    words = put_link_words(db, stored_link_words(db, keys), [(page.key, page.link_words) for page in pages])
    for page in pages:
        insert_page(db, page, count=False, words=words[page.key])
        for term, n in term_counts(page.terms).items():
            counts[term] = counts.get(term, 0) + n
    count_terms(db, counts, +1)


def insert_page(
    db: sqlite3.Connection, page: PreparedPage, count: bool = True, words: bytes | None = None
) -> None:
    """Insert or replace a prepared page with its sections, full-text rows, vectors, and vocabulary counts and
    link words (unless the caller adds them, `count=False`, and hands the link words' blob, `words`)."""
    if count:
        stored = stored_link_words(db, [page.key])
        words = put_link_words(db, stored, [(page.key, page.link_words)])[page.key]
    delete_page(db, page.key, rewrite=True)
    page_id = db.execute(
        "INSERT INTO pages(key, title, fetched_at, etag, last_modified, hash, listed) VALUES (?,?,?,?,?,?,?)",
        page.row,
    ).lastrowid
    db.execute("INSERT INTO page_data(id, words, doc) VALUES (?,?,?)", (page_id, words, page.stream))
    if page.listed:
        db.execute(
            "INSERT INTO pages_fts(rowid, title, headings, body, names) VALUES (?,?,?,?,?)",
            (page_id, *page.page_fts),
        )
    section_ids = []
    for k, row in enumerate(page.sections):
        section_id = db.execute(
            "INSERT INTO sections(page_id, ord, anchor, level, title, names) VALUES (?,?,?,?,?,?)",
            (page_id, *row[:4], row[5]),  # its path is in the page's stream (pack_page)
        ).lastrowid
        if page.listed:
            db.execute(
                "INSERT INTO sections_fts(rowid, title, path, body, names) VALUES (?,?,?,?,?)",
                (section_id, *page.section_fts[k]),
            )
        section_ids.append(section_id)
    if page.listed:
        sql = "INSERT INTO section_digests(id, page_id, digest, trimmed) VALUES (?,?,?,?)"
        db.executemany(
            sql, [(s, p, digest_key(d), t) for s, p, d, t in page.digest_rows(section_ids, page_id)]
        )
        db.execute(
            "INSERT INTO page_shapes VALUES (?,?,?,?)",
            (page_id, len(page.sections), sum(1 for d in page.digests if d), page.words),
        )
    if count:
        count_terms(db, term_counts(page.terms), +1)
    if page.vectors:
        db.execute(
            "INSERT INTO page_vectors(id, model, vecs) VALUES (?,?,?)",
            (page_id, page.vector_model, page.vectors),
        )
    insert_keywords(db, page_id, page.keywords)


def count_terms(db: sqlite3.Connection, counts: dict[str, int], sign: int) -> None:
    """Add (or take back) a page's terms to the document frequencies: no reload of the vocabulary."""
    if not counts:
        return
    db.executemany(
        "INSERT INTO vocab(term, df) VALUES (?, ?) ON CONFLICT(term) DO UPDATE SET df = df + excluded.df",
        [(t, sign * n) for t, n in counts.items()],
    )


def delete_page(db: sqlite3.Connection, key: str, rewrite: bool = False) -> None:
    """A page and everything stored with it; its terms taken back from the vocabulary. `rewrite`: the page is
    written again at once, which replaces its link words itself (`put_link_words`: only the difference)."""
    if not rewrite:
        put_link_words(db, stored_link_words(db, [key]), [(key, ())])
    row = db.execute("SELECT id, title, listed FROM pages WHERE key=?", (key,)).fetchone()
    if not row:
        return
    page_id, title, listed = row
    if listed:
        sections = db.execute(
            "SELECT id, title, names FROM sections WHERE page_id=? ORDER BY ord", (page_id,)
        ).fetchall()
        paths, texts = unpack_places(
            db.execute("SELECT doc FROM page_data WHERE id=?", (page_id,)).fetchone()[0]
        )
        rows = [(t, p, x, n) for (_, t, n), p, x in zip(sections, paths, texts, strict=True)]
        page_fts, section_fts, df = fts_rows(title, rows)
        # Contentless tables forget a row only when told the very tokens it was indexed with.
        _fts_delete(db, "pages_fts", [(page_id, page_fts)])
        _fts_delete(db, "sections_fts", [(r[0], f) for r, f in zip(sections, section_fts, strict=True)])
        count_terms(db, df, -1)
    db.execute("DELETE FROM sections WHERE page_id=?", (page_id,))
    db.execute("DELETE FROM pages WHERE id=?", (page_id,))
    db.execute("DELETE FROM page_data WHERE id=?", (page_id,))
    db.execute("DELETE FROM page_vectors WHERE id=?", (page_id,))
    db.execute("DELETE FROM section_digests WHERE page_id=?", (page_id,))
    db.execute("DELETE FROM page_shapes WHERE id=?", (page_id,))
    delete_keywords(db, page_id)


def _fts_delete(db: sqlite3.Connection, table: str, rows: list[tuple[int, FtsRow]]) -> None:
    db.executemany(
        f"INSERT INTO {table}({table}, rowid, {_FTS_COLUMNS[table]}) VALUES ('delete', ?, ?, ?, ?, ?)",
        [(rowid, *cols) for rowid, cols in rows],
    )


_FTS_COLUMNS = {"pages_fts": "title, headings, body, names", "sections_fts": "title, path, body, names"}


def touch_page(db: sqlite3.Connection, key: str, when: float) -> None:
    """A 304: the stored copy is fresh again."""
    db.execute("UPDATE pages SET fetched_at=? WHERE key=?", (when, key))


def put_meta(db: sqlite3.Connection, key: str, value: str) -> None:
    db.execute("INSERT OR REPLACE INTO meta VALUES (?,?)", (key, value))


def new_generation(db: sqlite3.Connection) -> None:
    """A new random generation, in the write transaction it marks (random: a rebuilt file never repeats one)."""
    db.execute("INSERT OR REPLACE INTO meta VALUES (?, lower(hex(randomblob(16))))", (GENERATION_META,))


def put_vectors(db: sqlite3.Connection, model: str, rows: list[tuple[int, bytes]]) -> int:
    """Store pages' section vectors computed after the fact; a page removed or rewritten meanwhile (a new
    page gets a new id) is skipped. Returns how many were stored."""
    before = db.total_changes
    db.executemany(
        "INSERT OR REPLACE INTO page_vectors(id, model, vecs) SELECT ?, ?, ? "
        "WHERE EXISTS (SELECT 1 FROM pages WHERE id=? AND listed=1)",
        [(pid, model, vecs, pid) for pid, vecs in rows if vecs],
    )
    return db.total_changes - before
