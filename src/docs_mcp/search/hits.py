"""Search hits: the ranked pages that make the list (one per content, no all-in-one copies), read back as a
title, their best section's place and a snippet."""

from __future__ import annotations

from docs_mcp.model.hits import SearchHit
from docs_mcp.search.snippets import snippet
from docs_mcp.settings import AGGREGATE_SIZE_RATIO
from docs_mcp.store.interface import Reads
from docs_mcp.text.terms import query_terms

#: Sections read below a hit's heading that has no text of its own, for its snippet.
FOLLOWING_SECTIONS = 3


def one_per_content(
    ranked: list[int], titles: dict[int, tuple[str, frozenset[str], str]], limit: int
) -> list[int]:
    """The best `limit` pages; a page one source serves at two addresses (`dir/`, `dir/index.html`) only once."""
    seen: set[str] = set()
    out = []
    for pid in ranked:
        digest = titles[pid][2] if pid in titles else f"page {pid}"
        if digest not in seen:
            seen.add(digest)
            out.append(pid)
            if len(out) == limit:
                break
    return out


def without_aggregate_copies(reads: Reads, ranked: list[int], section_of: dict[int, int | None]) -> list[int]:
    """Drop a hit whose best section is, word for word, that of a page AGGREGATE_SIZE_RATIO times smaller.

    All-in-one pages (Node's all.html, mdBook's print.html, single-page builds) repeat every page of the
    site; their copy would take a result slot from the page it came from. Sibling pages of one size that
    share a boilerplate section are not copies of each other.
    """
    sids = [section_of[pid] for pid in ranked if section_of[pid] is not None]
    if len(sids) < 2:
        return ranked
    smallest: dict[str, int] = {}  # section text → section count of the smallest page showing it
    info = {}
    for page_id, text, count in reads.section_sizes(sids):
        if text:
            info[page_id] = (text, count)
            smallest[text] = min(count, smallest.get(text, count))
    return [
        pid
        for pid in ranked
        if pid not in info or info[pid][1] < AGGREGATE_SIZE_RATIO * smallest[info[pid][0]]
    ]


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
