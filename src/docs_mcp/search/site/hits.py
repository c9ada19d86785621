"""Search hits: the ranked pages that make the list (one per content), read back as a title, their best
section's place, a snippet and the other addresses of the same item."""

from __future__ import annotations

from docs_mcp.model.hits import SearchHit
from docs_mcp.search.site.snippets import snippet
from docs_mcp.store.interface import Reads, Scope
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


def build_hits(
    reads: Reads,
    ranked: list[tuple[int, int | None, float]],
    query: str,
    scope: Scope,
    also: dict[int, list[int]] | None = None,
) -> list[SearchHit]:
    """Build the hits with two reads in all (pages, sections), not two per hit; `also` names, per page, the
    pages holding the same item (their keys shown with the hit)."""
    also = also or {}
    terms = query_terms(query)
    ranked = [
        (pid, sid if sid is not None else reads.best_section(pid, terms, scope), score)
        for pid, sid, score in ranked
    ]
    wanted = [pid for pid, _, _ in ranked] + [o for pid, _, _ in ranked for o in also.get(pid, ())]
    pages = {row.id: row for row in reads.page_rows(wanted)}
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
        others = tuple(pages[o].key for o in also.get(pid, ()) if o in pages)
        if sec is None:
            hits.append(SearchHit(page.key, page.title, "", (), "", "", page.fetched_at, score, others))
            continue
        parts = [p for p in sec.path.split(" > ") if p and p != page.title]
        if sec.title and sec.title != page.title:
            parts.append(sec.title)
        text = snippet(sec.text if sec.text.strip() else below.get(pid, ""), query)
        hits.append(
            SearchHit(
                page.key, page.title, sec.anchor, tuple(parts), text, "", page.fetched_at, score, others
            )
        )
    return hits
