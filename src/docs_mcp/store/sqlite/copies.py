"""The SQLite side of telling copies apart (search/site/copies.py): how many of a page's section digests other
pages of a scope hold."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from docs_mcp.store.pagerows import DIGESTED_BELOW, WHOLE_DIGESTS
from docs_mcp.store.sqlite.inbound import marks


def digest_key(digest: str) -> int:
    """A section's content digest (16 hex digits, crawl/rows.py) as `section_digests` holds it: a signed 64-bit
    integer, 8 bytes, where the text took 17."""
    return int(digest, 16) - (1 << 63)


def shared_digests(
    db: sqlite3.Connection,
    page_id: int,
    scope: tuple[str, list[str]],
    other: int | None,
    most: int | None,
    near: bool = True,
) -> int:
    """How many of one page's digested sections another listed page of the scope (`scope_sql`'s condition)
    holds too: the page `other`, or any (None); when `most` is given, only pages with at most that many digests;
    `near`: by a digest without a section's last sentence too."""
    where, args = scope
    which = "b.page_id=?" if other is not None else "b.page_id!=?"
    # A join, not `b.page_id IN (SELECT id FROM page_shapes …)`: SQLite drove the digest index by that list,
    # one probe per small page of the site for each digest (JDK 17's JEditorPane.html: 79 digests, 4,674 small
    # pages, 74 ms a call; joined 0.3 ms).
    smaller = "" if most is None else " JOIN page_shapes s ON s.id=b.page_id AND s.digests <= ?"
    sql = (
        "SELECT count(DISTINCT a.id) FROM section_digests a WHERE a.page_id=? AND EXISTS (SELECT 1 FROM "
        f"section_digests b JOIN pages p ON p.id=b.page_id{smaller} WHERE b.digest=a.digest"
        f"{'' if near else WHOLE_DIGESTS} AND {which} AND p.listed=1 AND {where})"
    )
    values = (page_id, *([] if most is None else [most]), page_id if other is None else other, *args)
    return db.execute(sql, values).fetchone()[0]


def digested_below(db: sqlite3.Connection, section_ids: Sequence[int]) -> dict[int, int]:
    """Per section without a content digest: the first section under it that has one (`DIGESTED_BELOW`)."""
    sql = DIGESTED_BELOW.format(ids=f"IN ({marks(section_ids)})")
    return {sid: below for sid, below in db.execute(sql, list(section_ids)) if below is not None}
