"""Section texts in the SQLite index: one zlib stream a page (`page_data.texts`, pagerows.pack_texts), a section
row naming its place in it by its `ord`."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from docs_mcp.store.interface import SectionRow
from docs_mcp.store.pagerows import unpack_texts
from docs_mcp.store.sqlite.inbound import marks

#: The columns a `SectionRow` is made from, with the section's `ord` (its text's place) before its names.
SECTION_COLUMNS = "id, page_id, anchor, title, path, ord, names"


def page_texts(db: sqlite3.Connection, page_ids: Sequence[int]) -> dict[int, list[str]]:
    """Each page's section texts, in page order."""
    ids = sorted(set(page_ids))
    sql = f"SELECT id, texts FROM page_data WHERE id IN ({marks(ids)})"
    return {pid: unpack_texts(blob) for pid, blob in db.execute(sql, ids)}


def section_rows(db: sqlite3.Connection, rows: Sequence[tuple]) -> list[SectionRow]:
    """`SectionRow`s of rows of SECTION_COLUMNS, each with its text (its page's texts read once)."""
    texts = page_texts(db, [row[1] for row in rows]) if rows else {}
    return [SectionRow(*row[:5], texts[row[1]][row[5]], row[6] or "") for row in rows]
