"""In-page ranking: BM25 over each section's own text, a heading boost, and the choice of sections."""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from docs_mcp.model.document import Document
from docs_mcp.model.section import Entry, Section
from docs_mcp.search.in_page.named import without_names
from docs_mcp.search.semantic.signal import blend, page_cosines
from docs_mcp.settings import (
    HEADING_BOOST,
    NAMES_BOOST,
    SECONDARY_SCORE_RATIO,
    SMALL_SECTION_CHARS,
    mechanism_on,
)
from docs_mcp.text.terms import idf, query_literals, query_terms, tokenize

if TYPE_CHECKING:
    import numpy as np

#: Okapi BM25's term-frequency saturation and length normalization (the usual values).
BM25_K1, BM25_B = 1.5, 0.75
#: The token that stands for a word of left-out code (no query term is ever this).
_PAD = "\x01"
#: At most this many code words count towards a section's length.
CODE_LENGTH_CAP = 5_000
#: The weight of a section's cosine with the query against its BM25 (z-scores over the IN_PAGE_HEAD best
#: sections and the IN_PAGE_NEAREST nearest the query). In-doc solved, eight sets, tuning / validation half:
#: BM25 alone 234 / 242; 0.2 and 0.3 236 / 243, 0.4 237 / 243, 0.5 236 / 239, 0.6 232 / 239 (a 256-dim
#: vector: 237 / 242; an entry's own vector for its section: 237 / 243, and pointing at that entry 234 / 243).
IN_PAGE_WEIGHT = 0.4
IN_PAGE_HEAD = 30  # at 0.4, 10: 235 tuning, 100: 237
IN_PAGE_NEAREST = 5  # 0: 236, 10: 237
#: The weight of a candidate passage's cosine with the query against its word score (z-scores over a section's
#: PASSAGE_HEAD best windows). In-doc solved, eleven sets, tuning / validation half: words alone 283 / 291;
#: 0.2 286 / 289, 0.4 292 / 291, 0.6 289 / 285; at 0.4, head 10 288 / 290, 40 292 / 288; the best word
#: window kept first 289 / 290; the 3 paragraphs nearest the query joining the head 289 / 287.
PASSAGE_WEIGHT = 0.4
PASSAGE_HEAD = 20
#: Lines' token sums a page keeps for its passages' vectors, at most (float16 at 128 dims with its key: ~0.6 KB
#: each, so ≤ ~0.6 MB a page and ~30 MB over the 50 pages the document cache holds).
PIECE_MEMO_SIZE = 1_000
#: Literals whose places a page keeps, at most (each a list of its sections).
LITERAL_MEMO_SIZE = 1_000
#: Markdown's own markup characters (emphasis, headings, code spans).
MARKUP = frozenset("*_#`")
#: The score of a word match that meaning pushed past the last BM25 score (below any floor; still listed).
PUSHED_DOWN_SCORE = 1e-9


@dataclass(frozen=True)
class ScoredSection:
    index: int
    score: float
    #: The section's entry (definition) that scored best on its own, when it beat the section: -1 if none.
    entry: int = -1


def _pairs(flat: tuple[int, ...]) -> Iterable[tuple[int, int]]:
    return zip(flat[::2], flat[1::2], strict=True)


class BM25:
    """Okapi BM25 over token lists, with Lucene's IDF (`text.terms.idf`), which never goes negative.

    Okapi's own IDF is negative for a term in more than half the documents: on a page of one or two
    sections every term would count against a match, and nothing would ever be found.
    """

    def __init__(self, corpus: list[list[str]]):
        self.lengths = [len(doc) for doc in corpus]
        self.average = sum(self.lengths) / len(corpus)
        #: term → (document, frequency, document, frequency, …) for the documents holding it, in document
        #: order: flat tuples take a third of the memory of lists of pairs (most terms are in one section).
        postings: dict[str, list[int]] = {}
        for i, doc in enumerate(corpus):
            for term, n in Counter(doc).items():
                postings.setdefault(term, []).extend((i, n))
        self.postings = {t: tuple(p) for t, p in postings.items()}
        self.idf = {t: idf(len(corpus), len(p) // 2) for t, p in self.postings.items()}

    def scores(
        self, terms: list[str], more: Sequence[tuple[float, list[tuple[int, int]]]] = ()
    ) -> list[float]:
        """Each document's BM25 score for the terms and `more` (IDF, [(document, frequency)]) (0.0 if none)."""
        out = [0.0] * len(self.lengths)
        k1, b = BM25_K1, BM25_B
        own = ((self.idf.get(t, 0.0), _pairs(self.postings.get(t, ()))) for t in terms)
        for weight, postings in [*own, *more]:
            for i, n in postings:
                out[i] += weight * (n * (k1 + 1) / (n + k1 * (1 - b + b * self.lengths[i] / self.average)))
        return out

    def score(self, terms: list[str], counts: Counter[str], length: int) -> float:
        """BM25 of one more text (an entry inside a section) against this corpus' statistics."""
        k1, b = BM25_K1, BM25_B
        norm = k1 * (1 - b + b * length / self.average)
        return sum(
            self.idf.get(t, 0.0) * (n * (k1 + 1) / (n + norm)) for t in terms if (n := counts.get(t, 0))
        )


class PageIndex:
    """BM25 statistics of one page's sections, built once per Document and memoized with it.

    A section is scored on its own text (its definitions included, code left out of the markdown excluded)
    and the definitions it holds count like a weaker heading.
    """

    def __init__(self, doc: Document):
        self.doc = doc
        tokens = [tokenize(s.text) for s in doc.sections]
        #: Whether each section's text holds a word (the token lists themselves are not kept: 0.1 MB a page).
        self.has_words = [bool(t) for t in tokens]
        titles = [tokenize(s.title) for s in doc.sections]
        self.titles = [set(t) for t in titles]
        #: Names a section defines (API signatures, options, glossary terms) count like a weaker heading.
        self.names = [
            set(tokenize(" ".join(s.names))) - t for s, t in zip(doc.sections, self.titles, strict=True)
        ]
        # Code left out of the markdown matches nothing but keeps its length: a section that is mostly code
        # is not a short, dense answer.
        # Another section's title said in a section's text points there (named.py): its words keep the length.
        lengths = [
            t + [_PAD] * min(s.code_words, CODE_LENGTH_CAP)
            for s, t in zip(doc.sections, without_names(titles, tokens, _PAD), strict=True)
        ]
        # The average length divides: an all-empty page still needs one token somewhere.
        self.bm25 = BM25([t or ["\x00"] for t in lengths])
        self.max_idf = max(self.bm25.idf.values(), default=1.0)
        #: Tokens of markdown lines, keyed by text: passages re-read the same sections.
        self.block_tokens: dict[str, tuple[str, ...]] = {}
        #: Token-vector sums of lines, by text (semantic.span_cosines): the page's next query re-reads them.
        self.piece_sums: dict[str, np.ndarray] = {}
        #: Where each literal a query held stands in the sections' bodies (`literals`), by literal.
        self.literal_postings: dict[str, list[tuple[int, int]]] = {}
        #: Per section: (entry index, term counts, length, name terms) of each entry ranked on its own.
        self.entries = [_entry_units(s) for s in doc.sections] if mechanism_on("entry-units") else []

    def literals(self, query: str) -> dict[str, list[tuple[int, int]]]:
        """The query's literals (`2>&1`, `~+`: no token holds one) and their [(section, count)] in the bodies."""
        if not mechanism_on("literals"):
            return {}
        out = {}
        for lit in query_literals(query):
            found = self.literal_postings.get(lit)
            if found is None:
                if len(self.literal_postings) > LITERAL_MEMO_SIZE:
                    self.literal_postings.clear()
                found = [(i, n) for i, s in enumerate(self.doc.sections) if (n := _occurrences(s, lit))]
                self.literal_postings[lit] = found
            out[lit] = found
        return out

    def literal_idf(self, postings: list[tuple[int, int]]) -> float:
        """A literal's IDF over the sections (one the page's bodies do not hold as written counts as the rarest)."""
        return idf(len(self.doc.sections), len(postings) or 1)

    def idf(self, term: str) -> float:
        # A term seen only in headings is as rare as the rarest body term.
        return max(self.bm25.idf.get(term, self.max_idf), 0.0)

    def rank(self, query: str, meaning: bool = True) -> list[ScoredSection]:
        """Sections by BM25 (with the heading, names and entry boosts), then by meaning too (`meaning`)."""
        terms = query_terms(query)
        literals = [(self.literal_idf(p), p) for p in self.literals(query).values() if p]
        if not terms and not literals:
            return []
        scores = self.bm25.scores(terms, literals)
        out = []
        for i, base in enumerate(scores):
            # A heading with no text of its own is left out (its subsections compete), unless its code holds a
            # literal: no word can score it, so any score is a literal's.
            if not self.has_words[i] and not base:
                continue
            heading = sum(self.idf(t) for t in terms if t in self.titles[i])
            named = sum(self.idf(t) for t in terms if t in self.names[i])
            score = base + HEADING_BOOST * heading + NAMES_BOOST * named
            entry, alone = self._best_entry(i, terms)
            score, entry = (alone, entry) if alone > score else (score, -1)
            if score > 0 and (base > 0 or heading > 0):
                out.append(ScoredSection(i, score, entry))
        out.sort(key=lambda s: -s.score)
        return self._with_meaning(query, out) if meaning and mechanism_on("in-page-semantic") else out

    def _with_meaning(self, query: str, ranked: list[ScoredSection]) -> list[ScoredSection]:
        """The best sections re-ordered by their cosine with the query blended in, the sections nearest it
        joining them (a paraphrase shares few words with its answer). Each takes, in its new order, the BM25
        score of that place, so `select_sections` keeps as many sections as BM25 alone would have."""
        cosine = page_cosines(self.doc, query) if ranked else None
        if cosine is None:
            return ranked
        head, tail = ranked[:IN_PAGE_HEAD], {s.index: s for s in ranked[IN_PAGE_HEAD:]}
        inside = {s.index for s in head}
        nearest = [int(i) for i in (-cosine).argsort()[:IN_PAGE_NEAREST]]
        # A near section BM25 ranked lower joins with its own score (and leaves the tail); any other, with none.
        units = head + [
            tail.pop(i, ScoredSection(i, 0.0)) for i in nearest if i not in inside and self.has_words[i]
        ]
        mixed = blend([u.score for u in units], [float(cosine[u.index]) for u in units], IN_PAGE_WEIGHT)
        order = sorted(range(len(units)), key=lambda k: -mixed[k])
        scores = sorted((u.score for u in units), reverse=True)
        placed = [
            ScoredSection(units[k].index, score or PUSHED_DOWN_SCORE, units[k].entry)
            for k, score in zip(order, scores, strict=True)
            if score or units[k].score  # a section with none of the words counts only above one with them
        ]
        return placed + list(tail.values())

    def _best_entry(self, i: int, terms: list[str]) -> tuple[int, float]:
        """Section i's entry that scores best on its own, and its score ((-1, 0.0) if none).

        An entry (an option, a variable, a pragma) is a unit of its own inside a long section: when it scores
        better alone than the whole section, it ranks the section and is shown first. It is scored as if at
        least of average length (a few-word entry must not outrank real answers); short sections are shown
        whole, so theirs are not scored.
        """
        if not self.entries:
            return -1, 0.0
        entry, best = -1, 0.0
        for k, counts, length, names in self.entries[i]:
            alone = self.bm25.score(terms, counts, max(length, self.bm25.average))
            alone += NAMES_BOOST * sum(self.idf(t) for t in terms if t in names)
            if alone > best:
                entry, best = k, alone
        return entry, best


def in_markdown(literal: str) -> bool:
    """Whether a literal can be told apart in markdown: `**` alone would match every bold word there."""
    return not set(literal) <= MARKUP


def _occurrences(section: Section, literal: str) -> int:
    """How often a literal stands in a section's own body, code included (an example is often where `2>&1`
    is): its markdown as written, or its HTML, where `<`, `>` and `&` are escaped."""
    if section.body_md is not None:
        return section.body_md.count(literal) if in_markdown(literal) else 0
    return section.body_html.count(html.escape(literal, quote=False))


def entries_alone(section: Section) -> list[tuple[int, Entry, str]]:
    """The entries of a section that count on their own, with their text: those of a section too long to be
    shown whole whose words are known (a short section is its entries' unit)."""
    if len(section.text) <= SMALL_SECTION_CHARS:
        return []
    return [
        (k, e, section.text[e.text_span[0] : e.text_span[1]])
        for k, e in enumerate(section.entries)
        if e.text_span is not None
    ]


def _entry_units(section: Section) -> list[tuple[int, Counter[str], int, set[str]]]:
    """The entries of a section that are ranked on their own: term counts, length and name terms."""
    out = []
    for k, e, text in entries_alone(section):
        tokens = tokenize(text)
        out.append((k, Counter(tokens), len(tokens), set(tokenize(e.name))))
    return out


def page_index(doc: Document) -> PageIndex:
    key = ("bm25",)
    idx = doc._memo.get(key)
    if idx is None:
        idx = PageIndex(doc)
        doc._memo[key] = idx
    return idx


def select_sections(doc: Document, ranked: list[ScoredSection], limit: int) -> list[ScoredSection]:
    """Best sections, weak ones dropped; a section may come with its ancestor (each shows only its own text)."""
    chosen: list[ScoredSection] = []
    if not ranked:
        return chosen
    floor = ranked[0].score * SECONDARY_SCORE_RATIO
    for cand in ranked:
        if len(chosen) >= limit or cand.score < floor:
            break
        chosen.append(cand)
    return chosen
