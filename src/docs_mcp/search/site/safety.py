"""Rank safety in site search: what the blend of signals may never do to a page holding the query as written.

The semantic blend and the keyword bridge can lift pages that hold none of the query's words (nearest by
meaning, or filed under them by the site's index). They must never push below those pages one that holds every
word of the query as written. How much the cosine counts may depend on the query too: a few terms of the site's
vocabulary are what the agent means word for word; a sentence is worded its own way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from docs_mcp.search.site.scoring import selective_phrases
from docs_mcp.settings import MAX_QUERY_TERMS, SEMANTIC_WEIGHT, mechanism_on
from docs_mcp.text.stopwords import STOPWORDS
from docs_mcp.text.terms import bare_token, bounded_query, tokenize

#: A word of the query (the tokenizer's words, apostrophes kept) for telling terms from a sentence.
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
#: A query with this many stopwords, or ending in a question mark, is a sentence; fewer, a list of terms.
SENTENCE_STOPWORDS = 2
#: The cosine's weight in search_docs' blend for a query of terms (a sentence's is settings.SEMANTIC_WEIGHT).
#: Tuning halves, seven sets, terse forms, mean MRR@10: 0.3 .693, 0.6 .717, 0.75 .703; full forms: 0.3, 0.45
#: and 0.6 within .002. The same weight as a sentence's until a split shows a gain.
SEMANTIC_TERMS_WEIGHT = 0.6


def written_query(query: str, selective: Iterable[str] | None = None) -> tuple[str, ...]:
    """The phrases a page must hold to hold the query as written: each content word as the phrase of its index
    tokens (`lru_cache` → `lru cach`); stopwords left out unless nothing else is left, a word repeated counted
    once. With `selective` (the query's terms the site does not hold nearly everywhere,
    scoring.selective_terms), only phrases with such a term: a word most pages hold tells none apart, and its
    postings are most of a lookup's cost (JDK 17's Javadoc: `java`, `class`)."""
    phrases: dict[str, None] = {}
    fallback: dict[str, None] = {}
    for raw in bounded_query(query).split():
        token = bare_token(raw)
        phrase = " ".join(tokenize(token))
        if not phrase:
            continue
        content = any(w not in STOPWORDS for w in _WORD.findall(token.lower()))
        (phrases if content else fallback).setdefault(phrase)
        if len(phrases) == MAX_QUERY_TERMS:
            break
    chosen = list(phrases or fallback)
    return tuple(chosen if selective is None else selective_phrases(chosen, selective))


def is_sentence(query: str) -> bool:
    """Whether a query is worded as a sentence (its stopwords, a question mark) rather than typed as terms."""
    words = _WORD.findall(query.lower())
    return query.rstrip().endswith("?") or sum(w in STOPWORDS for w in words) >= SENTENCE_STOPWORDS


def semantic_weight(query: str) -> float:
    """The cosine's weight in the blend: SEMANTIC_WEIGHT for a sentence, SEMANTIC_TERMS_WEIGHT for terms."""
    return SEMANTIC_WEIGHT if is_sentence(query) else SEMANTIC_TERMS_WEIGHT


class Holding:
    """`pages_holding` for one search, each (phrase, page) looked up once: the coverage bonus and rank safety
    ask about the same words and pages (each lookup reads the word's postings: ~0.2-1 ms on JDK 17's Javadoc)."""

    def __init__(self, lookup: Callable[[str, list[int]], Iterable[int]]):
        self.lookup = lookup
        self.known: dict[
            str, tuple[set[int], set[int]]
        ] = {}  # phrase → (pages asked about, pages holding it)

    def __call__(self, phrase: str, ids: list[int]) -> list[int]:
        asked, held = self.known.setdefault(phrase, (set(), set()))
        new = [pid for pid in ids if pid not in asked]
        if new:
            held.update(self.lookup(phrase, new))
            asked.update(new)
        return [pid for pid in ids if pid in held]


def exact_first(
    combined: dict[int, float],
    phrases: tuple[str, ...],
    holding: Callable[[str, list[int]], Iterable[int]],
) -> dict[int, float]:
    """The ranking with no page holding none of the phrases above a page holding all of them: those holding
    none move just below the last page holding all (the others keep their order). `holding(phrase, ids)`
    gives those of the pages whose text holds the phrase. Scores are kept where the order stands, lowered just
    enough elsewhere."""
    if not phrases or len(combined) < 2:
        return combined
    held = _held(combined, phrases, holding)
    order = sorted(combined, key=lambda p: -combined[p])
    whole = [i for i, p in enumerate(order) if held[p] == len(phrases)]
    if whole:
        head, tail = order[: whole[-1] + 1], order[whole[-1] + 1 :]
        order = [p for p in head if held[p]] + [p for p in head if not held[p]] + tail
    return scored_as(combined, order)


def versions_first(
    combined: dict[int, float],
    versioned: dict[int, float],
    phrases: tuple[str, ...],
    holding: Callable[[str, list[int]], Iterable[int]],
) -> dict[int, float]:
    """The ranking with no page whose title lacks the version the query writes above one whose title writes it
    and holds as many of the query's phrases: of thirty "Django 1.x.y release notes" pages, the one titled with
    the version asked for leads, whatever the blend made of their equal words."""
    if not versioned or len(combined) < 2:
        return combined
    held = _held(combined, phrases, holding)
    order = sorted(combined, key=lambda p: -combined[p])
    for pid in sorted((p for p in versioned if p in combined), key=lambda p: (-versioned[p], -combined[p])):
        order.remove(pid)
        at = next(
            (
                i
                for i, p in enumerate(order)
                if held[p] <= held[pid] and versioned.get(p, 0.0) < versioned[pid]
            ),
            len(order),
        )
        order.insert(at, pid)
    return scored_as(combined, order)


def safe_order(
    combined: dict[int, float],
    phrases: tuple[str, ...],
    versioned: dict[int, float],
    holding: Callable[[str, list[int]], Iterable[int]],
) -> dict[int, float]:
    """exact_first, then versions_first, each unless switched off."""
    if mechanism_on("rank-safety"):
        combined = exact_first(combined, phrases, holding)
    if mechanism_on("versions"):
        combined = versions_first(combined, versioned, phrases, holding)
    return combined


def _held(
    combined: dict[int, float], phrases: tuple[str, ...], holding: Callable[[str, list[int]], Iterable[int]]
) -> dict[int, int]:
    """Per page: how many of the phrases its text holds."""
    ids = sorted(combined)
    held: dict[int, int] = dict.fromkeys(ids, 0)
    for phrase in phrases:
        for pid in holding(phrase, ids):
            held[pid] += 1
    return held


def scored_as(combined: dict[int, float], order: list[int]) -> dict[int, float]:
    """Scores for a new order: kept where the order stands, lowered just enough elsewhere."""
    out: dict[int, float] = {}
    previous = float("inf")
    for pid in order:
        previous = min(combined[pid], previous - 1e-6)
        out[pid] = previous
    return out
