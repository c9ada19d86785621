"""Run the audit over one source: sample its pages, ask each page's known items as search_docs and search_in_doc
ask them (the library's own ranking, not the MCP layer), and record where the right answer ranked and what
stood above it."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from docs_mcp.audit.queries import (
    LINK_WORDS,
    KnownItem,
    PageFacts,
    learning,
    page_items,
    read_as,
    section_items,
    stable_hash,
)
from docs_mcp.fetch.sources import Source
from docs_mcp.model.document import Document
from docs_mcp.search.in_page.ranking import page_index, select_sections
from docs_mcp.search.site.search import SiteSearch
from docs_mcp.settings import AUDIT_HITS, DEFAULT_MAX_SECTIONS, PRIOR_MIN_PAGES
from docs_mcp.store.interface import Scope

#: Slots a thief is counted in: the top 3 a reader looks at.
TOP = 3


@dataclass(frozen=True)
class Outcome:
    """Where one known item's answer ranked (1-based; 0: not in the hits read) and what stood above it in the
    top 3: page addresses and titles (site search) or section titles (inside the page)."""

    item: KnownItem
    #: The right page's address as search_docs shows it.
    page: str
    rank: int
    above: tuple[tuple[str, str], ...] = ()


@dataclass
class SiteAudit:
    """One source's audit: its pages, the sample, and every known item's outcome."""

    source: str
    listed: int
    sampled: list[str] = field(default_factory=list)
    pages: list[Outcome] = field(default_factory=list)
    sections: list[Outcome] = field(default_factory=list)
    #: Sampled pages the index could not hand back (stale or gone): not asked for.
    unread: int = 0
    seconds: float = 0.0


def sample(
    search: SiteSearch, source: Source, keys: list[str], count: int, learn: bool = False
) -> list[tuple[str, str]]:
    """(key, seed) of `count` pages, the same on every run and machine: ordered by the hash of their address
    relative to the root (a site served or read as a folder gives the same sample). Only pages outside the
    prior's learning half (`learning`), or, with `learn`, only pages inside it; a site too small to learn a
    prior has no such half."""
    halves = len(keys) >= PRIOR_MIN_PAGES
    seeded = []
    for key in keys:
        loc = search.locate(key, source.name)
        seed = loc.key.removeprefix(source.root) if loc is not None else ""
        if loc is not None and (not halves or learning(seed) == learn):
            seeded.append((key, seed))
    seeded.sort(key=lambda ks: (stable_hash(ks[1]), ks[1]))
    return seeded[:count]


def audit_source(
    search: SiteSearch, source: Source, pages: int, on_page: Callable[[int, int], None] | None = None
) -> SiteAudit:
    """The audit of one configured source: `pages` sampled pages, each asked for by its known items."""
    started = time.monotonic()
    scope = Scope.of([source])
    with search.index.reading() as reads:
        listed = reads.listed_pages(scope)
    keys = [key for key, _ in listed]
    titles = Counter(title.strip() for _, title in listed)
    audit = SiteAudit(source.name, len(keys))
    facts: list[PageFacts] = []
    chosen = sample(search, source, keys, pages)
    for n, (key, seed) in enumerate(chosen, 1):
        doc = search.load_document(key)
        if doc is None:
            audit.unread += 1
            continue
        audit.sampled.append(doc.url)
        facts.append(PageFacts.of(doc, key, seed))
        audit.sections += [_in_page(doc, item) for item in section_items(doc, key, seed)]
        if on_page:
            on_page(n, len(chosen))
    audit.pages = _site_outcomes(search, source, facts, {t for t, n in titles.items() if n > 1})
    audit.seconds = time.monotonic() - started
    return audit


def _site_outcomes(
    search: SiteSearch, source: Source, facts: list[PageFacts], shared_titles: set[str]
) -> list[Outcome]:
    """Every sampled page's known items, asked of the site search."""
    outcomes = []
    for f, items in known_items(search, facts, shared_titles):
        right = _shown(search, f.key, source)
        outcomes += [_on_site(search, source, item, right) for item in items]
    return outcomes


def known_items(
    search: SiteSearch, facts: list[PageFacts], shared_titles: set[str]
) -> list[tuple[PageFacts, list[KnownItem]]]:
    """Each sampled page's known items; what several pages say names none of them."""
    with search.index.reading() as reads:
        inbound = {f.key: reads.inbound_words(f.key, LINK_WORDS) for f in facts}
    # What links say of a page counts as its words do: "django note releas" said of thirty release pages
    # (their versions are not words) names none of them; nor does what search reads of them ("version" of
    # SQLite's "version 3 4 5" and "3 4 version": one-character numbers are no terms).
    said = (read_as(" ".join(words[:LINK_WORDS])) for words in inbound.values())
    seen = Counter(x for f in facts for x in {*f.headings, *f.names, *f.sentences})
    seen.update(said)
    common = shared_titles | {x for x, n in seen.items() if n > 1}
    return [(f, page_items(f, inbound[f.key], common)) for f in facts]


def _shown(search: SiteSearch, key: str, source: Source) -> str:
    """A page's address as search_docs shows it."""
    loc = search.locate(key, source.name)
    return search.sources.display_url(loc) if loc is not None else key


def _on_site(search: SiteSearch, source: Source, item: KnownItem, right: str) -> Outcome:
    hits = search.search(item.query, AUDIT_HITS, source.name)
    rank = next((r for r, h in enumerate(hits, 1) if right in (h.url, *h.also)), 0)
    above = hits[: (rank - 1 if rank else len(hits))][:TOP]
    return Outcome(item, right, rank, tuple((h.url, h.title) for h in above))


def _in_page(doc: Document, item: KnownItem) -> Outcome:
    """A section's known item asked of search_in_doc's ranking: the sections it would show, best first."""
    chosen = [s.index for s in select_sections(doc, page_index(doc).rank(item.query), DEFAULT_MAX_SECTIONS)]
    rank = chosen.index(item.section) + 1 if item.section in chosen else 0
    above = chosen[: (rank - 1 if rank else len(chosen))][:TOP]
    return Outcome(item, doc.url, rank, tuple((doc.sections[i].id, doc.sections[i].title) for i in above))
