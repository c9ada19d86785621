"""The site's own words for a question it matched weakly (issue 42, item 4).

A question worded in the user's terms (another language's feature, a popular tool's name) often finds pages
holding only some of its words: the docs call the thing otherwise. Static word vectors rarely bridge that; the
model calling the tools usually can, once it sees the site's terms. The search cannot tell a weak match from
its scores alone, so it names terms only when its two views disagree (the pages the words found first are not
those nearest by meaning) or both are weak; and it takes them from the site's own keyword index only: the
words the authors filed a passage under, which the passage may not use (headings and defined names of the
matched sections were noise: release notes, long option lists). Off unless $DOCSLICE_SITE_TERMS=on: the
agent policy lost with the entries too (docs/benchmarks.md, "Site terms").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from docs_mcp.search.site.safety import Holding, written_query
from docs_mcp.settings import (
    COMMON_TERM_SHARE,
    KEYWORD_CANDIDATES,
    SITE_TERM_CHARS,
    SITE_TERMS,
    SITE_TERMS_COSINE,
    SITE_TERMS_SHARE,
    SITE_TERMS_TOP,
)
from docs_mcp.store.interface import Reads, Scope
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
    scope: Scope,
    shown: Sequence[int],
    idf: Mapping[str, float],
) -> list[str]:
    """Entries of the site's own keyword index (Sphinx genindex, DocBook bookindex, Javadoc index-files,
    Texinfo indexes) holding the query's selective words and a word it does not say, filed under a page the
    hits do not show: one a page, those holding the rarest of its words first; none on a site without one."""
    said = set(tokenize(query))
    best: dict[int, tuple[float, int, str]] = {}
    for n, (pid, _, term, _) in enumerate(reads.keyword_matches(selective, scope, KEYWORD_CANDIDATES)):
        words = set(term.split())
        if pid in shown or not words or words <= said:
            continue
        # The entry's words are the index's tokens (stemmed): the search reads them as written.
        weight = sum(idf.get(t, 0.0) for t in words.intersection(selective))
        if pid not in best or (-weight, n) < best[pid][:2]:
            best[pid] = (-weight, n, term)
    found: dict[str, str] = {}
    for _, _, term in sorted(best.values()):
        term = clip(escaped(term), SITE_TERM_CHARS)
        found.setdefault(term.casefold(), term)
    return list(found.values())[:SITE_TERMS]
