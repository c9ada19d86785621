"""The site's own words for a question it matched weakly (issue 42, item 4).

A question worded in the user's terms (another language's feature, a popular tool's name) often finds pages
holding only some of its words: the docs call the thing otherwise. Static word vectors rarely bridge that; the
model calling the tools usually can, once it sees the site's terms. The search cannot tell a weak match from
its scores alone, so it names terms only when its two views disagree (the pages the words found first are not
those nearest by meaning) or both are weak; and it takes them from the candidates' own sections: headings and
defined names the query did not say, of the sections holding most of the query's words. Off unless
$DOCSLICE_SITE_TERMS=on: the agent policy gained no question with it (docs/benchmarks.md, "Site terms").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from docs_mcp.model.hits import SearchHit
from docs_mcp.search.site.safety import Holding, written_query
from docs_mcp.settings import (
    COMMON_TERM_SHARE,
    SITE_TERM_CHARS,
    SITE_TERM_NAMES,
    SITE_TERM_PAGES,
    SITE_TERM_TEXT,
    SITE_TERMS,
    SITE_TERMS_COSINE,
    SITE_TERMS_SHARE,
    SITE_TERMS_TOP,
)
from docs_mcp.store.interface import Reads
from docs_mcp.text.controls import escaped
from docs_mcp.text.terms import tokenize
from docs_mcp.text.tidy import clip


def top_pages(scores: Mapping[int, float]) -> list[int]:
    """The SITE_TERMS_TOP pages of the highest scores."""
    return sorted(scores, key=lambda p: -scores[p])[:SITE_TERMS_TOP]


@dataclass(frozen=True)
class Views:
    """How a query's two views of the site agree: whether neither's best page is among the other's top pages,
    the largest share of the query's phrases a top page by words holds, and the best page's cosine."""

    phrases: int
    disagree: bool
    held: float
    nearest: float | None

    @property
    def weak(self) -> bool:
        """The views disagree, or are both weak: no top page by words holds more than SITE_TERMS_SHARE of the
        phrases, none by meaning is nearer than SITE_TERMS_COSINE. One phrase never: found, it is the whole
        query found; not found, the answer says "no match" otherwise."""
        if self.phrases < 2:
            return False
        near = self.nearest is not None and self.nearest >= SITE_TERMS_COSINE
        return self.disagree or (self.held <= SITE_TERMS_SHARE and not near)


def told_phrases(query: str, terms: Sequence[str], df: Mapping[str, int], total: int) -> tuple[str, ...]:
    """The query's phrases of words the site does not hold nearly everywhere, those it lacks included
    (`virtualenv`): what a weak match's best pages miss."""
    return written_query(query, [t for t in terms if df.get(t, 0) <= COMMON_TERM_SHARE * total])


def views(
    phrases: Sequence[str], lexical: Mapping[int, float], cosine: Mapping[int, float], holding: Holding
) -> Views:
    """The Views of a query's phrases, its pages scored by words (`lexical`) and by meaning (`cosine`)."""
    words, meaning = top_pages(lexical), top_pages(cosine)
    disagree = bool(words and meaning) and words[0] not in meaning and meaning[0] not in words
    held = Counter(pid for phrase in phrases for pid in holding(phrase, words)) if len(phrases) > 1 else {}
    share = max(held.values(), default=0) / max(1, len(phrases))
    return Views(len(phrases), disagree, share, max(cosine.values(), default=None))


def site_terms(
    reads: Reads,
    query: str,
    selective: Sequence[str],
    ordered: Sequence[int],
    sections_of: Mapping[int, list[int]],
    hits: Sequence[SearchHit],
) -> list[str]:
    """The headings and defined names of the matched sections of the SITE_TERM_PAGES best pages (`ordered`)
    that the query does not say, those of the sections holding most of its selective terms first; none of a
    heading several sections share (Description, Examples), none the hits already show (titles, headings)."""
    sections = [sid for pid in ordered[:SITE_TERM_PAGES] for sid in sections_of.get(pid, [])]
    said, wanted = set(tokenize(query)), set(selective)
    seen = {" ".join(t.split()).casefold() for h in hits for t in (h.title, *h.section_path)}
    rows = reads.section_rows(dict.fromkeys(sections))
    order = {sid: n for n, sid in enumerate(dict.fromkeys(sections))}
    shared = Counter(" ".join(row.title.split()).casefold() for row in rows)
    scored: list[tuple[int, int, list[str]]] = []
    for row in rows:
        held = len(wanted.intersection(tokenize(f"{row.title}\n{row.names}\n{row.text[:SITE_TERM_TEXT]}")))
        names = [n for n in row.names.split("\n") if n.strip()][:SITE_TERM_NAMES]
        title = " ".join(row.title.split())
        offered = ([title] if shared[title.casefold()] == 1 else []) + names
        scored.append((-held, order.get(row.id, len(order)), offered))
    found: dict[str, str] = {}
    for _, _, offered in sorted(scored, key=lambda s: s[:2]):
        for term in offered:
            # Escaped as hits' titles are (an index written before titles were escaped holds raw ones).
            term = clip(escaped(" ".join(term.split())), SITE_TERM_CHARS)
            words = set(tokenize(term))
            if words and not words <= said and term.casefold() not in seen:
                found.setdefault(term.casefold(), term)
    return list(found.values())[:SITE_TERMS]
