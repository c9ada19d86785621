"""search_docs's answer: hits with their status line and optional headings, and the search over cached pages."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from docs_mcp import settings as C
from docs_mcp.convert.outline import outline_line
from docs_mcp.errors import echo
from docs_mcp.fetch.versions import SEP, version_label
from docs_mcp.model.document import Document
from docs_mcp.model.hits import SearchHit
from docs_mcp.text.budget import truncate
from docs_mcp.text.dates import utc_minute

#: A page's headings: (level, id, title), in page order.
Headings = list[tuple[int, str, str]]
#: Other addresses of one item named with its hit at most (a page re-exported by 20 modules: 3 and a count).
ALSO_SHOWN = 3
#: Opens the line naming the site's terms for a weakly matched query (the benchmarks' agent reads it).
SITE_TERMS = "this site's own terms nearest your question (search again with one):"


def answer(
    query: str,
    hits: list[SearchHit],
    status: str,
    multi: bool,
    headings: Callable[[str], Headings] | None,
    cap: int,
    searched: bool = True,
    terms: Sequence[str] = (),
) -> str:
    """The text search_docs returns: a header with the status, then one block per hit (and its headings).
    `searched`: the sources held pages to search (without any, other words would not help: the status says
    why, a dead source or a build under way). `terms`: the site's own words when the query matched weakly,
    said on one line under the header."""
    # An agent's query may be megabytes long: echo() cuts it.
    if terms:
        status += (
            "\nThe best pages may not answer it; " + SITE_TERMS + " " + " · ".join(f'"{t}"' for t in terms)
        )
    if not hits:
        advice = " Try other words or fewer of them." if searched else ""
        return f"search_docs {echo(query)}: no match. {status}.{advice}"
    blocks = []
    for n, h in enumerate(hits, 1):
        path = " > ".join(h.section_path)
        path = f" — {path}" if path and path != h.title else ""
        src = f" · {version_label(h.source)}" if multi or SEP in h.source else ""
        anchor = f"#{h.section_id}" if h.section_id else ""
        more = f" (+{len(h.also) - ALSO_SHOWN} more)" if len(h.also) > ALSO_SHOWN else ""
        also = f"\n   also at: {', '.join(h.also[:ALSO_SHOWN])}{more}" if h.also else ""
        blocks.append(
            f"{n}. {h.title}{path}\n   {h.url}{anchor}{src} · fetched {utc_minute(h.fetched_at)}{also}\n"
            f"   {h.snippet}"
        )
    head = f"search_docs {echo(query)}: {len(hits)} result(s). {status}"
    if headings is not None:
        blocks = _with_headings(hits, blocks, cap - len(head) - sum(len(b) + 2 for b in blocks), headings)
    return head + "\n\n" + "\n\n".join(blocks)


def _with_headings(
    hits: list[SearchHit], blocks: list[str], budget: int, headings: Callable[[str], Headings]
) -> list[str]:
    """Each hit's outline, ≤ HEADINGS_CAP entries (h1–h3 only when longer), and all within the budget."""
    share = max(0, budget) // max(1, len(hits))
    out = []
    for h, block in zip(hits, blocks, strict=True):
        heads = headings(h.url)
        if len(heads) > C.HEADINGS_CAP:
            heads = [x for x in heads if x[0] <= C.HEADINGS_FALLBACK_MAX_LEVEL]
        shown = heads[: C.HEADINGS_CAP]
        lines = ["     " + outline_line(lv, title, sid) for lv, sid, title in shown]
        text = "\n".join(lines)
        if len(text) > share:
            text, _ = truncate(text, max(0, share - 40))
        omitted = len(heads) - text.count("\n") - (1 if text else 0)
        note = f"\n     (+{omitted} more: get_doc_toc)" if omitted > 0 and share > 40 else ""
        out.append(f"{block}\n   headings:\n{text}{note}" if text else block)
    return out


def search_cache(
    documents: Iterable[Document], query: str, limit: int, source: str | tuple[str, ...] | None
) -> list[SearchHit]:
    """Fallback search over the documents already in memory."""
    from docs_mcp.search.in_page.ranking import page_index
    from docs_mcp.search.site.snippets import snippet

    hits = []
    for doc in documents:
        if source and doc.source not in ((source,) if isinstance(source, str) else source):
            continue
        ranked = page_index(doc).rank(query, meaning=False)  # a page's vectors cost ~100 ms each: not for 50
        if ranked:
            best = ranked[0]
            sec = doc.sections[best.index]
            hits.append(
                SearchHit(
                    doc.url,
                    doc.title,
                    sec.id,
                    tuple(doc.short_path(best.index)),
                    snippet(sec.text, query),
                    doc.source,
                    doc.fetched_at,
                    best.score,
                )
            )
    hits.sort(key=lambda h: -h.score)
    return hits[:limit]
