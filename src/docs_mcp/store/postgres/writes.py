"""Every write of the PostgreSQL index, each inside the caller's transaction (one page, one short transaction:
readers keep reading their snapshot meanwhile)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_mcp.store.pagerows import PreparedPage, term_counts, unpack_links, unpack_text
from docs_mcp.store.postgres import text
from docs_mcp.store.postgres.keywords import delete_keywords, insert_keywords

if TYPE_CHECKING:
    import psycopg

_PAGE = (
    "INSERT INTO pages(key, title, fetched_at, etag, last_modified, hash, listed) "
    "VALUES (%s,%s,%s,%s,%s,%s,%s) RETURNING id"
)
_SECTION = (
    "INSERT INTO sections(id, page_id, ord, anchor, level, title, path, text, names, tsv, len) "
    "VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s::tsvector,%s)"
)


def insert_page(db: psycopg.Connection, page: PreparedPage) -> None:
    """Insert or replace a prepared page with its sections, full-text rows, vocabulary counts and vectors."""
    delete_page(db, page.key)
    row = page.row
    page_id = db.execute(_PAGE, (*row[:6], bool(row[6]))).fetchone()[0]
    db.execute(
        "INSERT INTO page_data(id, links, terms, doc) VALUES (%s,%s,%s,%s)",
        # Links and texts as plain text: PostgreSQL compresses large values itself (TOAST).
        (page_id, "\n".join(unpack_links(page.links)), page.terms, page.doc),
    )
    if page.listed:
        tsv, length, counts = text.tsvector(page.page_fts)
        db.execute("INSERT INTO page_fts(id, tsv, len) VALUES (%s, %s::tsvector, %s)", (page_id, tsv, length))
        _copy(
            db,
            "page_terms (term, id, len, a, b, c, d)",
            ((t, page_id, length, *n) for t, n in counts.items()),
        )
        _totals(db, "pages", 1, length)
    # Ids drawn first, so each section's term rows can name it (COPY returns no ids).
    ids = [
        r[0]
        for r in db.execute(
            "SELECT nextval(pg_get_serial_sequence('sections', 'id')) FROM generate_series(1, %s)",
            (len(page.sections),),
        )
    ]
    rows, postings, tokens = [], [], 0
    for k, section in enumerate(page.sections):
        tsv, length, counts = text.tsvector(page.section_fts[k]) if page.listed else (None, None, {})
        tokens += length or 0
        rows.append((ids[k], page_id, *section[:5], unpack_text(section[5]), section[6], tsv, length))
        postings += [(t, ids[k], page_id, length, *n) for t, n in counts.items()]
    with db.cursor() as cur:
        cur.executemany(_SECTION, rows)
    _copy(db, "section_terms (term, id, page_id, len, a, b, c, d)", postings)
    if page.listed:
        digests = [(ids[k], page_id, d) for k, d in enumerate(page.digests) if d]
        _copy(db, "section_digests (id, page_id, digest)", digests)
        db.execute("INSERT INTO page_shapes VALUES (%s,%s,%s)", (page_id, len(page.sections), len(digests)))
    if page.listed:
        _totals(db, "sections", len(rows), tokens)
    count_terms(db, page.terms, +1)
    if page.vectors:
        db.execute(
            "INSERT INTO page_vectors(id, model, vecs) VALUES (%s,%s,%s)",
            (page_id, page.vector_model, page.vectors),
        )
    insert_keywords(db, page_id, page.keywords)


def _copy(db: psycopg.Connection, target: str, rows) -> None:
    """Rows into a table by COPY (a page's term rows: thousands; COPY is ~10× an INSERT per row)."""
    with db.cursor() as cur, cur.copy(f"COPY {target} FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def _totals(db: psycopg.Connection, kind: str, rows: int, tokens: int) -> None:
    """FTS5's own counts: full-text rows and their tokens (BM25's N and average length)."""
    db.execute(
        "UPDATE fts_totals SET rows = rows + %s, tokens = tokens + %s WHERE kind=%s", (rows, tokens, kind)
    )


def count_terms(db: psycopg.Connection, terms: bytes | None, sign: int) -> None:
    """Add (or take back) a page's terms to the document frequencies, in term order (no deadlock between
    two writers: both lock the rows they share in the same order)."""
    counts = term_counts(terms)
    if not counts:
        return
    with db.cursor() as cur:
        cur.executemany(
            "INSERT INTO vocab(term, df) VALUES (%s, %s) ON CONFLICT(term) DO UPDATE SET df = vocab.df + excluded.df",
            [(t, sign * counts[t]) for t in sorted(counts)],
        )


def delete_page(db: psycopg.Connection, key: str) -> None:
    """A page and everything stored with it; its terms and full-text counts taken back."""
    row = db.execute(
        "SELECT p.id, d.terms FROM pages p LEFT JOIN page_data d ON d.id=p.id WHERE p.key=%s FOR UPDATE OF p",
        (key,),
    ).fetchone()
    if not row:
        return
    page_id, terms = row
    # The totals rows in one order (pages, then sections) in every write: two writers never deadlock.
    fts = db.execute("DELETE FROM page_fts WHERE id=%s RETURNING len", (page_id,)).fetchone()
    if fts:
        _totals(db, "pages", -1, -fts[0])
    gone = db.execute(
        "DELETE FROM sections WHERE page_id=%s RETURNING len IS NOT NULL, coalesce(len, 0)", (page_id,)
    ).fetchall()
    listed = [n for fts, n in gone if fts]
    if listed:
        _totals(db, "sections", -len(listed), -sum(listed))
    db.execute("DELETE FROM section_terms WHERE page_id=%s", (page_id,))
    db.execute("DELETE FROM section_digests WHERE page_id=%s", (page_id,))
    db.execute("DELETE FROM page_shapes WHERE id=%s", (page_id,))
    for table in ("pages", "page_data", "page_vectors", "page_terms"):
        db.execute(f"DELETE FROM {table} WHERE id=%s", (page_id,))
    delete_keywords(db, page_id)
    count_terms(db, bytes(terms) if terms is not None else None, -1)


def touch_page(db: psycopg.Connection, key: str, when: float) -> None:
    db.execute("UPDATE pages SET fetched_at=%s WHERE key=%s", (when, key))


def put_meta(db: psycopg.Connection, key: str, value: str) -> None:
    db.execute(
        "INSERT INTO meta VALUES (%s,%s) ON CONFLICT(key) DO UPDATE SET value=excluded.value", (key, value)
    )


def put_vectors(db: psycopg.Connection, model: str, rows: list[tuple[int, bytes]]) -> int:
    """Store section vectors computed after the fact; a page removed or rewritten meanwhile is skipped."""
    stored = 0
    for pid, vecs in rows:
        if vecs:
            cur = db.execute(
                "INSERT INTO page_vectors(id, model, vecs) SELECT %s, %s, %s "
                "WHERE EXISTS (SELECT 1 FROM pages WHERE id=%s AND listed) "
                "ON CONFLICT(id) DO UPDATE SET model=excluded.model, vecs=excluded.vecs",
                (pid, model, vecs, pid),
            )
            stored += cur.rowcount
    return stored
