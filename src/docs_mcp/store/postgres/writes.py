"""Every write of the PostgreSQL index, each inside the caller's transaction (one page, one short transaction:
readers keep reading their snapshot meanwhile)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_mcp.store.pagerows import PreparedPage, term_counts, unpack_links, unpack_text
from docs_mcp.store.postgres import text
from docs_mcp.store.postgres.keywords import delete_keywords, insert_keywords
from docs_mcp.store.postgres.postings import page_rows

if TYPE_CHECKING:
    import psycopg

_PAGE = (
    "INSERT INTO pages(key, title, fetched_at, etag, last_modified, hash, listed, len) "
    "VALUES (%s,%s,%s,%s,%s,%s,%s,%s) RETURNING id"
)
_SECTION = (
    "INSERT INTO sections(id, page_id, ord, anchor, level, title, path, text, names, len) "
    "VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)"
)


def insert_page(db: psycopg.Connection, page: PreparedPage) -> bool:
    """Insert or replace a prepared page with its sections, term rows, vocabulary counts and vectors; whether
    it replaced one."""
    replaced = delete_page(db, page.key)
    row = page.row
    page_len, page_counts = text.column_counts(page.page_fts) if page.listed else (None, {})
    page_id = db.execute(_PAGE, (*row[:6], bool(row[6]), page_len)).fetchone()[0]
    db.execute(
        "INSERT INTO page_data(id, links, terms, doc) VALUES (%s,%s,%s,%s)",
        # Links and texts as plain text: PostgreSQL compresses large values itself (TOAST).
        (page_id, "\n".join(unpack_links(page.links)), page.terms, page.doc),
    )
    # Ids drawn first, so that one statement inserts every section.
    ids = [
        r[0]
        for r in db.execute(
            "SELECT nextval(pg_get_serial_sequence('sections', 'id')) FROM generate_series(1, %s)",
            (len(page.sections),),
        )
    ]
    rows, counted = [], []
    for k, section in enumerate(page.sections):
        length, counts = text.column_counts(page.section_fts[k]) if page.listed else (None, {})
        rows.append((ids[k], page_id, *section[:5], unpack_text(section[5]), section[6], length))
        counted.append((section[0], length or 0, counts))
    with db.cursor() as cur:
        cur.executemany(_SECTION, rows)
    if page.listed:
        _copy(
            db, "terms (term, page_id, data)", ((t, page_id, d) for t, d in page_rows(page_counts, counted))
        )
        _totals(db, "pages", 1, page_len)
        _totals(db, "sections", len(rows), sum(n for _, n, _ in counted))
    count_terms(db, page.terms, +1)
    if page.vectors:
        db.execute(
            "INSERT INTO page_vectors(id, model, vecs) VALUES (%s,%s,%s)",
            (page_id, page.vector_model, page.vectors),
        )
    insert_keywords(db, page_id, page.keywords)
    return replaced


def _copy(db: psycopg.Connection, target: str, rows) -> None:
    """Rows into a table by COPY (a page's term rows: hundreds; COPY is ~10× an INSERT per row)."""
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


def delete_page(db: psycopg.Connection, key: str) -> bool:
    """A page and everything stored with it; its terms and full-text counts taken back. Whether it was there."""
    row = db.execute(
        "SELECT p.id, d.terms FROM pages p LEFT JOIN page_data d ON d.id=p.id WHERE p.key=%s FOR UPDATE OF p",
        (key,),
    ).fetchone()
    if not row:
        return False
    page_id, terms = row
    # The totals rows in one order (pages, then sections) in every write: two writers never deadlock.
    length = db.execute("DELETE FROM pages WHERE id=%s RETURNING len", (page_id,)).fetchone()[0]
    if length is not None:
        _totals(db, "pages", -1, -length)
    gone = db.execute(
        "DELETE FROM sections WHERE page_id=%s RETURNING len IS NOT NULL, coalesce(len, 0)", (page_id,)
    ).fetchall()
    listed = [n for fts, n in gone if fts]
    if listed:
        _totals(db, "sections", -len(listed), -sum(listed))
    for table, column in (("page_data", "id"), ("page_vectors", "id"), ("terms", "page_id")):
        db.execute(f"DELETE FROM {table} WHERE {column}=%s", (page_id,))
    delete_keywords(db, page_id)
    count_terms(db, bytes(terms) if terms is not None else None, -1)
    return True


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
