"""Section paths and texts in the SQLite index: the start of a page's stream (`page_data.doc`, pagerows.pack_page),
a section row naming its place in it by its `ord`."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from docs_mcp.errors import StreamDamaged
from docs_mcp.store.interface import SectionRow
from docs_mcp.store.pagestream import places_at
from docs_mcp.store.sqlite.inbound import marks

#: The columns a `SectionRow` is made from, its `ord` (its place in its page's stream) for its path and text.
SECTION_COLUMNS = "id, page_id, anchor, title, ord, names"


def section_rows(db: sqlite3.Connection, rows: Sequence[tuple]) -> list[SectionRow]:
    """`SectionRow`s of rows of SECTION_COLUMNS, each with its path and text (its page's stream read once, as
    far as the last of its sections asked)."""
    wanted: dict[int, set[int]] = {}
    for row in rows:
        wanted.setdefault(row[1], set()).add(row[4])
    sql = f"SELECT id, doc FROM page_data WHERE id IN ({marks(list(wanted))})"
    places = (
        {pid: places_at(blob, wanted[pid]) for pid, blob in db.execute(sql, list(wanted))} if rows else {}
    )
    out = []
    for sid, pid, anchor, title, ord_, names in rows:
        try:
            path, text = places[pid][ord_]
        except KeyError:  # a stream lost, or holding fewer places than the page's rows: not what was written
            raise StreamDamaged(
                f"a page's stored stream is damaged (no place {ord_} in page {pid}'s)"
            ) from None
        out.append(SectionRow(sid, pid, anchor, title, path, text, names or ""))
    return out
