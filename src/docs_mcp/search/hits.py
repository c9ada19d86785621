"""Search hits: the ranked pages read back as a title, their best section's place and a snippet."""

from __future__ import annotations

from docs_mcp.model.hits import SearchHit
from docs_mcp.search.snippets import snippet
from docs_mcp.store.interface import Reads
from docs_mcp.text.terms import query_terms

#: Sections read below a hit's heading that has no text of its own, for its snippet.
FOLLOWING_SECTIONS = 3


def build_hits(reads: Reads, ranked: list[tuple[int, int | None, float]], query: str) -> list[SearchHit]:
    """Build the hits with two reads in all (pages, sections), not two per hit."""
    terms = query_terms(query)
    ranked = [
        (pid, sid if sid is not None else reads.best_section(pid, terms), score) for pid, sid, score in ranked
    ]
    pages = {row.id: row for row in reads.page_rows([pid for pid, _, _ in ranked])}
    sections = {row.id: row for row in reads.section_rows([sid for _, sid, _ in ranked if sid is not None])}
    # A heading with no text of its own (gi-docgen's title over "Declaration", "Description") has no
    # snippet: its page's next section with text gives one.
    empty = [sid for sid, row in sections.items() if not row.text.strip()]
    below: dict[int, str] = {}
    for row in reads.following_sections(empty, FOLLOWING_SECTIONS) if empty else ():
        if row.text.strip():
            below.setdefault(row.page_id, row.text)
    hits = []
    for pid, sid, score in ranked:
        page = pages.get(pid)
        if page is None:  # cannot happen within one snapshot; never a KeyError if it did
            continue
        sec = sections.get(sid) if sid is not None else None
        if sec is None:
            hits.append(SearchHit(page.key, page.title, "", (), "", "", page.fetched_at, score))
            continue
        parts = [p for p in sec.path.split(" > ") if p and p != page.title]
        if sec.title and sec.title != page.title:
            parts.append(sec.title)
        text = snippet(sec.text if sec.text.strip() else below.get(pid, ""), query)
        hits.append(
            SearchHit(page.key, page.title, sec.anchor, tuple(parts), text, "", page.fetched_at, score)
        )
    return hits
