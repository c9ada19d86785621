"""The thieves' prior learned at the end of a build (issue 42 item 3): the known items of a sample of the
source's learning half (`queries.learning`; the audit samples only the other half) are asked of its site search
without any prior; a page that stood above the right one (top 3) for many of them, and was rarely the right
answer itself, gets a strength stored in the index (search/site/prior.py lowers it by that). Measured on the
site itself, never a list of names; a build relearns it.

Bounds (settings.py): a source of PRIOR_MIN_PAGES listed pages or more has a learning half (the audit samples
the other; a smaller one is audited whole and learns no prior). The known items of at most PRIOR_PAGES pages
of that half are asked, at most PRIOR_ITEMS, for at most PRIOR_SECONDS of CPU; with fewer than PRIOR_MIN_ITEMS asked,
no prior is kept. A page above the right one for PRIOR_MIN_ABOVE items or more, and PRIOR_MIN_SHARE of them, is
lowered by PRIOR_STRENGTH × its strength × the gap between the best score and the PRIOR_REACH-th."""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field

from docs_mcp.audit.queries import KnownItem, PageFacts
from docs_mcp.audit.run import TOP, known_items, sample
from docs_mcp.fetch.sources import Source
from docs_mcp.search.site.prior import prior_meta
from docs_mcp.search.site.ranker import SiteRanker
from docs_mcp.search.site.search import SiteSearch
from docs_mcp.settings import (
    AUDIT_HITS,
    PRIOR_ITEMS,
    PRIOR_MIN_ABOVE,
    PRIOR_MIN_ITEMS,
    PRIOR_MIN_PAGES,
    PRIOR_MIN_SHARE,
    PRIOR_PAGES,
    PRIOR_SECONDS,
)
from docs_mcp.store.interface import Scope, key_prefix


@dataclass
class Lesson:
    """What one self-audit asked and found: per page key, the items it stood above the right page for and
    those it answered first itself; the strengths kept (empty: no prior)."""

    asked: int = 0
    above: Counter[str] = field(default_factory=Counter)
    answered: Counter[str] = field(default_factory=Counter)
    strengths: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0


def learn_prior(search: SiteSearch, source: Source) -> Lesson:
    """Learn the source's prior and store it (or remove the old one when too few items say anything)."""
    started, spent = time.monotonic(), time.process_time()
    with search.index.reading() as reads:
        listed = reads.listed_pages(Scope.of([source]))
    items = _items(search, source, listed) if len(listed) >= PRIOR_MIN_PAGES else []
    lesson = ask(search, source, items, spent + PRIOR_SECONDS)
    if lesson.asked >= PRIOR_MIN_ITEMS:
        lesson.strengths = strengths(lesson)
    key = prior_meta(key_prefix(source))
    if lesson.strengths:
        search.index.set_meta(key, json.dumps(lesson.strengths, sort_keys=True))
    elif search.index.meta(key) is not None:
        search.index.forget(key, [])
    lesson.seconds = time.monotonic() - started
    return lesson


def _items(search: SiteSearch, source: Source, listed: list[tuple[str, str]]) -> list[KnownItem]:
    """The known items of up to PRIOR_PAGES pages of the learning half, at most PRIOR_ITEMS, one page's after
    another's (a cut leaves whole pages)."""
    titles = Counter(title.strip() for _, title in listed)
    facts = []
    for key, seed in sample(search, source, [k for k, _ in listed], PRIOR_PAGES, learn=True):
        doc = search.index.load_document(key)
        if doc is not None:
            facts.append(PageFacts.of(doc, key, seed))
    items = [
        i for _, page in known_items(search, facts, {t for t, n in titles.items() if n > 1}) for i in page
    ]
    return items[:PRIOR_ITEMS]


def ask(search: SiteSearch, source: Source, items: list[KnownItem], until: float) -> Lesson:
    """Each item asked of the site search without a prior (by store key), until this process's CPU time
    reaches `until` (CPU, not the wall clock: on a busy machine the same items are asked)."""
    ranker, scope, lesson = SiteRanker(search.index, prior=False), Scope.of([source]), Lesson()
    for item in items:
        if time.process_time() > until:
            break
        hits = ranker.search(item.query, AUDIT_HITS, scope)
        rank = next((r for r, h in enumerate(hits, 1) if item.key in (h.url, *h.also)), 0)
        lesson.above.update(h.url for h in hits[: (rank - 1 if rank else len(hits))][:TOP])
        lesson.answered[item.key] += rank == 1
        lesson.asked += 1
    return lesson


def strengths(lesson: Lesson) -> dict[str, float]:
    """A page above the right one for PRIOR_MIN_ABOVE items or more and PRIOR_MIN_SHARE of those asked: the
    share of its appearances that were wrong (above others' answers against first for its own)."""
    floor = max(PRIOR_MIN_ABOVE, PRIOR_MIN_SHARE * lesson.asked)
    return {key: round(n / (n + lesson.answered[key]), 3) for key, n in lesson.above.items() if n >= floor}
