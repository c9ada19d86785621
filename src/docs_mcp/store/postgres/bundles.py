"""Bundles of pages whose term rows are stored together (postings.py): a page gone from a bundle, and
small bundles merged into one, so that each term has about one row per BUNDLE_PAGES pages however the
pages were written (a crawl writes a few at a time)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from docs_mcp.store.postgres.postings import bundle_rows, decode, page_terms

if TYPE_CHECKING:
    import psycopg

#: Pages a merged bundle holds at most.
BUNDLE_PAGES = 32


def copy_rows(db: psycopg.Connection, bundle: int, rows: Sequence[tuple[str, bytes]]) -> None:
    """A bundle's term rows, by COPY (thousands: COPY is ~10× an INSERT per row)."""
    with db.cursor() as cur, cur.copy("COPY terms (term, bundle, data) FROM STDIN") as copy:
        for term, data in rows:
            copy.write_row((term, bundle, data))


def rewrite(db: psycopg.Connection, bundles: Sequence[int]) -> int:
    """The bundles' rows as one bundle (the smallest id) of their pages still in the index; its page count."""
    into = min(bundles)
    rows = db.execute(
        "SELECT term, bundle, data FROM terms WHERE bundle = ANY(%s)", (list(bundles),)
    ).fetchall()
    data = decode([bytes(d) for _, _, d in rows], [b for _, b, _ in rows])
    alive = [pid for (pid,) in db.execute("SELECT id FROM pages WHERE bundle = ANY(%s)", (list(bundles),))]
    data = data.only(np.isin(data.page_id, alive))
    db.execute("DELETE FROM terms WHERE bundle = ANY(%s)", (list(bundles),))
    db.execute("DELETE FROM bundles WHERE id = ANY(%s)", (list(bundles),))
    if alive:
        copy_rows(db, into, bundle_rows(into, page_terms(data, [t for t, _, _ in rows])))
        db.execute("UPDATE pages SET bundle = %s WHERE bundle = ANY(%s)", (into, list(bundles)))
        db.execute("INSERT INTO bundles(id, pages, live) VALUES (%s, %s, %s)", (into, len(alive), len(alive)))
    return len(alive)


def left(db: psycopg.Connection, bundle: int) -> None:
    """A page of the bundle is gone: the bundle's rows are deleted with its last page, and rewritten without
    the pages gone once they are three quarters of it (until then, readers skip them). Not at half: a full
    refresh rewrites pages in their crawl order, so most bundles empty whole, and each rewrite is dead rows."""
    live, pages = db.execute(
        "UPDATE bundles SET live = live - 1 WHERE id=%s RETURNING live, pages", (bundle,)
    ).fetchone()
    if live == 0 or 4 * live <= pages:
        rewrite(db, [bundle])


def merge(db: psycopg.Connection, bundles: Sequence[int]) -> tuple[int, int] | None:
    """Bundles (a crawl's few pages a write, and the last merge's bundle) into one, if they are still there:
    its id and the pages it holds (None if fewer than two were left)."""
    held = [
        b for (b,) in db.execute("SELECT id FROM bundles WHERE id = ANY(%s) FOR UPDATE", (list(bundles),))
    ]
    return (min(held), rewrite(db, held)) if len(held) > 1 else None
