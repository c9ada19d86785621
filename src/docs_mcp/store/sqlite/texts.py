"""Section paths and texts in the SQLite index: the start of a page's stream (`page_data.doc`, pagerows.pack_page),
a section row naming its place in it by its `ord`."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from docs_mcp.store.interface import SectionRow
from docs_mcp.store.pagerows import unpack_places
from docs_mcp.store.sqlite.inbound import marks

#: The columns a `SectionRow` is made from, its `ord` (its place in its page's stream) for its path and text.
SECTION_COLUMNS = "id, page_id, anchor, title, ord, names"


def page_places(db: sqlite3.Connection, page_ids: Sequence[int]) -> dict[int, tuple[list[str], list[str]]]:
    """Each page's sections' (paths, texts), in page order."""
    ids = sorted(set(page_ids))
    sql = f"SELECT id, doc FROM page_data WHERE id IN ({marks(ids)})"
    return {pid: unpack_places(blob) for pid, blob in db.execute(sql, ids)}


def section_rows(db: sqlite3.Connection, rows: Sequence[tuple]) -> list[SectionRow]:
    """`SectionRow`s of rows of SECTION_COLUMNS, each with its path and text (its page's stream read once)."""
    places = page_places(db, [row[1] for row in rows]) if rows else {}
    out = []
    for sid, pid, anchor, title, ord_, names in rows:
        paths, texts = places[pid]
        out.append(SectionRow(sid, pid, anchor, title, paths[ord_], texts[ord_], names or ""))
    return out
