"""Every write of the PostgreSQL index, each inside the caller's transaction (one page, one short transaction:
readers keep reading their snapshot meanwhile)."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from docs_mcp.store.interface import GENERATION_META
from docs_mcp.store.pagerows import PreparedPage, fts_rows, pack_text, term_counts
from docs_mcp.store.pagestream import ZLIB_LEVEL, unpack_page
from docs_mcp.store.postgres import bundles, text
from docs_mcp.store.postgres.inbound import put_link_words
from docs_mcp.store.postgres.keywords import delete_keywords, put_keywords
from docs_mcp.store.postgres.postings import PageTerms, bundle_rows

if TYPE_CHECKING:
    import psycopg

_PAGE = (
    "INSERT INTO pages(id, key, title, fetched_at, etag, last_modified, hash, listed, len) "
    "VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s)"
)
_SECTION = (
    "INSERT INTO sections(id, page_id, ord, anchor, level, title, path, text, ztext, names, len) "
    "VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)"
)


def insert_pages(db: psycopg.Connection, pages: Sequence[PreparedPage]) -> tuple[int, int | None, int, int]:
    """Insert or replace prepared pages with their sections, vocabulary counts, vectors and, as one bundle,
    their term rows (postings.py); how many replaced a page, the bundle's id, its pages and its term rows."""
    # The document frequencies change by the difference between the old pages and the new ones, applied once:
    # a page rewritten as it was (most of a refresh) updates no vocab row (each update is a dead row).
    df: dict[str, int] = {}
    replacing = [_remove(db, page.key, df, rewrite=True) for page in pages]
    replaced = sum(old is not None for old in replacing)
    ids = _next_ids(db, "pages", len(pages))
    listed = [
        _insert_page(db, page_id, page, df, old)
        for page_id, page, old in zip(ids, pages, replacing, strict=True)
    ]
    count_terms(db, df)
    put_link_words(db, [(page.key, page.link_words) for page in pages])
    listed = [entry for entry in listed if entry is not None]
    if listed:
        bundle = min(page_id for page_id, _, _ in listed)
        db.execute(
            "INSERT INTO bundles(id, pages, live) VALUES (%s, %s, %s)", (bundle, len(listed), len(listed))
        )
        db.execute("UPDATE pages SET bundle = %s WHERE id = ANY(%s)", (bundle, [pid for pid, _, _ in listed]))
        rows = bundle_rows(bundle, listed)
        bundles.copy_rows(db, bundle, rows)
        return replaced, bundle, len(listed), len(rows)
    return replaced, None, 0, 0


def _next_ids(db: psycopg.Connection, table: str, count: int) -> list[int]:
    """Ids drawn first, so that rows can name each other before they are inserted."""
    sql = f"SELECT nextval(pg_get_serial_sequence('{table}', 'id')) FROM generate_series(1, %s)"
    return [r[0] for r in db.execute(sql, (count,))]


def _put(
    db: psycopg.Connection, table: str, page_id: int, old_id: int | None, values: dict[str, object]
) -> None:
    """A page's row of `table`; the row of the page it replaces (`old_id`) moved to the new id instead, each
    column set to itself when unchanged: PostgreSQL then keeps its stored (TOAST) value, where a new row writes
    it again beside the old one's dead copy (a 1 MB index page's text: as much growth at once)."""
    if old_id is not None:
        sets = ", ".join(
            f"{c} = CASE WHEN {c} IS NOT DISTINCT FROM %({c})s THEN {c} ELSE %({c})s END" for c in values
        )
        moved = db.execute(
            f"UPDATE {table} SET id = %(id)s, {sets} WHERE id = %(old)s",
            {**values, "id": page_id, "old": old_id},
        )
        if moved.rowcount:
            return
    marks = ", ".join(f"%({c})s" for c in values)
    db.execute(
        f"INSERT INTO {table}(id, {', '.join(values)}) VALUES (%(id)s, {marks})", {**values, "id": page_id}
    )


def _insert_page(
    db: psycopg.Connection, page_id: int, page: PreparedPage, df: dict[str, int], old_id: int | None = None
) -> PageTerms | None:
    """One page's rows but its term rows (`old_id`: the page it replaces, whose large values it may keep);
    what its term rows are made of (None for an unlisted page)."""
    row = page.row
    page_len, page_counts = text.column_counts(page.page_fts) if page.listed else (None, {})
    db.execute(_PAGE, (page_id, *row[:6], bool(row[6]), page_len))
    # Links as plain text: PostgreSQL compresses large values itself (TOAST).
    # The document alone (SQLite keeps it in one stream after the texts; here each text is a section row's).
    _, texts, links, doc = unpack_page(page.stream)
    data = {"links": "\n".join(links), "doc": zlib.compress(doc, ZLIB_LEVEL)}
    _put(db, "page_data", page_id, old_id, data)
    ids = _next_ids(db, "sections", len(page.sections))
    rows, counted = [], []
    for k, (section, whole) in enumerate(zip(page.sections, texts, strict=True)):
        length, counts = text.column_counts(page.section_fts[k]) if page.listed else (None, {})
        # A long text zlib'd by itself (PostgreSQL compresses only rows over 2 kB itself; SQLite keeps a
        # page's texts in one stream).
        stored = pack_text(whole)
        plain, packed = ("", stored) if isinstance(stored, bytes) else (stored, None)
        rows.append((ids[k], page_id, *section[:5], plain, packed, section[5], length))
        counted.append((section[0], length or 0, counts))
    with db.cursor() as cur:
        cur.executemany(_SECTION, rows)
    if page.listed:
        digests = page.digest_rows(ids, page_id)
        with db.cursor() as cur:
            sql = "INSERT INTO section_digests (id, page_id, digest, trimmed) VALUES (%s,%s,%s,%s)"
            cur.executemany(sql, digests)
        db.execute(
            "INSERT INTO page_shapes VALUES (%s,%s,%s,%s)",
            (page_id, len(page.sections), sum(1 for d in page.digests if d), page.words),
        )
        _totals(db, "pages", 1, page_len)
        _totals(db, "sections", len(rows), sum(n for _, n, _ in counted))
    _add(df, term_counts(page.terms), +1)
    if page.vectors:
        _put(db, "page_vectors", page_id, old_id, {"model": page.vector_model, "vecs": page.vectors})
    elif old_id is not None:
        db.execute("DELETE FROM page_vectors WHERE id=%s", (old_id,))
    put_keywords(db, page.key, page.keywords)
    return (page_id, page_counts, counted) if page.listed else None


def _totals(db: psycopg.Connection, kind: str, rows: int, tokens: int) -> None:
    """FTS5's own counts: full-text rows and their tokens (BM25's N and average length)."""
    db.execute(
        "UPDATE fts_totals SET rows = rows + %s, tokens = tokens + %s WHERE kind=%s", (rows, tokens, kind)
    )


def _add(df: dict[str, int], terms: dict[str, int], sign: int) -> None:
    """A page's terms {term: sections holding it} added to (or taken from) changes of document frequencies."""
    for term, n in terms.items():
        df[term] = df.get(term, 0) + sign * n


def count_terms(db: psycopg.Connection, df: dict[str, int]) -> None:
    """Changes of document frequencies applied, in term order (no deadlock between two writers: both lock the
    rows they share in the same order); a term whose count did not change is left alone."""
    rows = [(t, df[t]) for t in sorted(df) if df[t]]
    if rows:
        with db.cursor() as cur:
            cur.executemany(
                "INSERT INTO vocab(term, df) VALUES (%s, %s) "
                "ON CONFLICT(term) DO UPDATE SET df = vocab.df + excluded.df",
                rows,
            )


def delete_page(db: psycopg.Connection, key: str, df: dict[str, int] | None = None) -> bool:
    """A page and everything stored with it; its terms and full-text counts taken back (its terms into `df`
    when given, for the caller to apply). Whether it was there."""
    return _remove(db, key, df) is not None


def _remove(db: psycopg.Connection, key: str, df: dict[str, int] | None, rewrite: bool = False) -> int | None:
    """`delete_page`; the page's id. `rewrite`: the page is written again at once, which replaces (or deletes)
    its data, vectors, keyword entries and link words itself (`_put`, `put_keywords`, `put_link_words`: unchanged
    values are kept)."""
    row = db.execute("SELECT id, bundle FROM pages WHERE key=%s FOR UPDATE", (key,)).fetchone()
    if not row:
        return None
    page_id, bundle = row
    # The totals rows in one order (pages, then sections) in every write: two writers never deadlock.
    length = db.execute("DELETE FROM pages WHERE id=%s RETURNING len", (page_id,)).fetchone()[0]
    if length is not None:
        _totals(db, "pages", -1, -length)
    # A listed page's sections (each with its full-text length) give back the terms they added to the
    # vocabulary, recounted from their texts as SQLite does (no stored copy of them: 2 MB on 1,699 pages).
    gone = db.execute(
        "DELETE FROM sections WHERE page_id=%s RETURNING ord, len, title, path, text, ztext, names",
        (page_id,),
    ).fetchall()
    listed = sorted(row for row in gone if row[1] is not None)
    if listed:
        _totals(db, "sections", -len(listed), -sum(row[1] for row in listed))
    db.execute("DELETE FROM section_digests WHERE page_id=%s", (page_id,))
    db.execute("DELETE FROM page_shapes WHERE id=%s", (page_id,))
    if not rewrite:
        for table in ("page_data", "page_vectors"):
            db.execute(f"DELETE FROM {table} WHERE id=%s", (page_id,))
        delete_keywords(db, key)
        put_link_words(db, [(key, ())])
    changes = {} if df is None else df
    if listed:
        texts = [
            (title, path, text.stored_text(plain, packed), names)
            for *_, title, path, plain, packed, names in listed
        ]
        _add(changes, fts_rows("", texts)[2], -1)
    if df is None:
        count_terms(db, changes)
    if bundle is not None:
        bundles.left(db, bundle)
    return page_id


def touch_page(db: psycopg.Connection, key: str, when: float) -> None:
    db.execute("UPDATE pages SET fetched_at=%s WHERE key=%s", (when, key))


def put_meta(db: psycopg.Connection, key: str, value: str) -> None:
    db.execute(
        "INSERT INTO meta VALUES (%s,%s) ON CONFLICT(key) DO UPDATE SET value=excluded.value", (key, value)
    )


def new_generation(db: psycopg.Connection) -> None:
    """A new random generation, in the write transaction it marks: readers see it with the rows it covers."""
    db.execute(
        "INSERT INTO meta VALUES (%s, md5(random()::text || clock_timestamp()::text)) "
        "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
        (GENERATION_META,),
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
