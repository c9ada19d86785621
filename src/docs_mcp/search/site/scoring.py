"""How the store's full-text matches become one score per page: selective terms, page evidence, title and
defined-name bonuses, release notes demoted. Pure functions over plain data."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from docs_mcp.settings import (
    COMMON_TERM_SHARE,
    COVERAGE_BONUS,
    KEYWORD_BONUS,
    MAX_POSTINGS,
    MIN_QUERY_TERMS,
    NAME_MATCH_BONUS,
    PAGE_EVIDENCE_SECTIONS,
    PAGE_SHARE,
    RELEASE_NOTES_FACTOR,
    TITLE_MATCH_BONUS,
)
from docs_mcp.site_words import RELEASE_NOTES_QUERY, RELEASE_NOTES_TITLE

#: Weight of "other pages link to the page with the query's words" (the IDF share of the query their link texts
#: hold: Evidence.anchors), words its own text may lack (a sidebar's name for a chapter). Set on the tuning halves.
ANCHOR_BONUS = 0.9
#: Weight of "the title writes the version the query writes" (evidence.versioned_pages), as a title's words;
#: safety.versions_first then puts such a page above those holding no more of the query's words.
VERSION_BONUS = 0.5


def selective_terms(terms: list[str], df: dict[str, int], total: int) -> list[str]:
    """Drop terms most sections contain (keeping the MIN_QUERY_TERMS rarest at least)."""
    if len(terms) <= MIN_QUERY_TERMS:
        return terms
    common = COMMON_TERM_SHARE * total
    kept, postings = [], 0
    # Rarest first; unknown terms match nothing.
    for t in sorted((t for t in terms if t in df), key=df.__getitem__):
        n = df[t]
        if len(kept) >= MIN_QUERY_TERMS and (n > common or postings + n > MAX_POSTINGS):
            break
        kept.append(t)
        postings += n
    return kept or terms


def selective_phrases(phrases: Iterable[str], selective: Iterable[str]) -> list[str]:
    """The phrases (space-separated index tokens) holding at least one of the query's selective terms: a
    phrase of words most sections hold tells no page apart, and its postings cost the most to read."""
    rare = set(selective)
    return [p for p in phrases if rare.intersection(p.split())]


def page_evidence(
    page_bm25: dict[int, float], by_page: dict[int, list[tuple[int, float]]]
) -> dict[int, float]:
    """A page's own score: its page-level BM25 plus its PAGE_EVIDENCE_SECTIONS best sections, each normalized.

    FTS5's BM25 gives a term in more than half the documents no weight at all. On a site of 80 pages
    "version" and "url" are such terms, so the page about URL versioning scored 0 at page level; its
    sections, among 1,300, still show the match. `by_page` lists each page's sections best first.
    """
    sections = {pid: sum(score for _, score in v[:PAGE_EVIDENCE_SECTIONS]) for pid, v in by_page.items()}
    top_page = max(page_bm25.values(), default=0.0) or 1.0
    top_sections = max(sections.values(), default=0.0) or 1.0
    return {
        pid: page_bm25.get(pid, 0.0) / top_page + sections.get(pid, 0.0) / top_sections
        for pid in page_bm25.keys() | sections.keys()
    }


@dataclass(frozen=True)
class Evidence:
    """What the store found for a query: candidate pages, each one's best section (id, BM25), page evidence,
    section defining a queried name, and title (tokens, owner + content hash)."""

    candidates: set[int]
    best_section: dict[int, tuple[int, float]]
    page_score: dict[int, float]
    defines: dict[int, int]
    titles: dict[int, tuple[str, frozenset[str], str]]
    #: Per candidate: the IDF-weighted share of the query's selective terms its page holds anywhere.
    coverage: dict[int, float]
    #: Per page the site's keyword index files under the query's words: its best entry's strength, anchor.
    keywords: dict[int, tuple[float, str]] = field(default_factory=dict)
    #: Per candidate: the query's terms that other pages' links to it say (store/*/inbound.py).
    anchors: dict[int, set[str]] = field(default_factory=dict)
    #: Per page: its sections the query's words matched, best first (at most proximity.PROXIMITY_SECTIONS).
    sections: dict[int, list[int]] = field(default_factory=dict)
    #: Per page whose title writes a version the query writes: the share of the query's versions it writes.
    versioned: dict[int, float] = field(default_factory=dict)


def keyword_strength(
    rows: list[tuple[int, str, str, float]], terms: list[str], idf: dict[str, float]
) -> dict[int, tuple[float, str]]:
    """Per target page: its best keyword-index entry's strength (the share of the entry's words the query
    holds, times the IDF share of the query the entry holds) and that entry's anchor."""
    idf_sum = sum(idf.get(t, 0.0) for t in terms) or 1.0
    wanted = set(terms)
    out: dict[int, tuple[float, str]] = {}
    for pid, anchor, term, _ in rows:
        tokens = set(term.split())
        matched = tokens & wanted
        if not matched:
            continue
        strength = len(matched) / len(tokens) * sum(idf.get(t, 0.0) for t in matched) / idf_sum
        if strength > out.get(pid, (0.0, ""))[0]:
            out[pid] = (strength, anchor)
    return out


def title_share(terms: list[str], idf: dict[str, float], title_tokens: frozenset[str]) -> float:
    """The IDF-weighted share of the query's terms a page's title holds."""
    return sum(idf[t] for t in terms if t in title_tokens) / (sum(idf.values()) or 1.0)


def titled_by(terms: list[str], idf: dict[str, float], title_tokens: frozenset[str]) -> float:
    """How far a page's title is the query (0 to 1): the share of the query its title holds (title_share) times
    the share of the title's words the query says (`ErrorHandler.hpp File Reference` is not the class asked)."""
    said = len(title_tokens.intersection(terms)) / (len(title_tokens) or 1)
    return title_share(terms, idf, title_tokens) * said


def combine(query: str, terms: list[str], idf: dict[str, float], found: Evidence) -> dict[int, float]:
    """Each candidate's score: its best section and its page evidence (each normalized to the best), bonuses
    for query terms in its title and in links to it (by their IDF) and for defining a queried name; release
    notes demoted."""
    top_sec = max((s for _, s in found.best_section.values()), default=0.0) or 1.0
    top_page = max(found.page_score.values(), default=0.0) or 1.0
    idf_sum = sum(idf.values()) or 1.0
    demote = not re.search(RELEASE_NOTES_QUERY, query)
    combined = {}
    for pid in found.candidates:
        section_score = found.best_section.get(pid, (0, 0.0))[1]
        page_score = found.page_score.get(pid, 0.0)
        score = (1 - PAGE_SHARE) * section_score / top_sec + PAGE_SHARE * page_score / top_page
        title, title_tokens, _ = found.titles.get(pid, ("", frozenset(), ""))
        score += TITLE_MATCH_BONUS * title_share(terms, idf, title_tokens)
        if pid in found.defines:
            score += NAME_MATCH_BONUS
        score += COVERAGE_BONUS * found.coverage.get(pid, 0.0)
        score += KEYWORD_BONUS * found.keywords.get(pid, (0.0, ""))[0]
        score += ANCHOR_BONUS * sum(idf[t] for t in found.anchors.get(pid, ())) / idf_sum
        score += VERSION_BONUS * found.versioned.get(pid, 0.0)
        if demote and re.search(RELEASE_NOTES_TITLE, title):
            score *= RELEASE_NOTES_FACTOR
        combined[pid] = score
    return combined
