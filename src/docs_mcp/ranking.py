"""In-page ranking: BM25 over each section's own text, a heading boost, nested de-duplication, passages."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .analysis import query_terms, tokenize
from .budget import boundary_cut
from .config import HEADING_BOOST, PASSAGE_CHARS, SECONDARY_SCORE_RATIO
from .document import Document


@dataclass(frozen=True)
class ScoredSection:
    index: int
    score: float


@dataclass(frozen=True)
class Passage:
    """A slice of a section's markdown; `offset` is a start_index for get_doc_section on that section."""

    offset: int
    text: str


def _bm25(corpus: list[list[str]]):
    """rank_bm25's Okapi BM25 with Lucene's IDF, log(1 + (N - n + 0.5) / (n + 0.5)), which never goes negative.

    Okapi's own IDF is negative for a term in more than half the sections: on a page of one or two
    sections every term would count against a match, and nothing would ever be found.
    """
    import math

    from rank_bm25 import BM25Okapi  # numpy behind it: imported on first use, not at server start

    class LuceneIDF(BM25Okapi):
        def _calc_idf(self, nd: dict[str, int]) -> None:
            self.idf = {w: math.log(1 + (self.corpus_size - n + 0.5) / (n + 0.5)) for w, n in nd.items()}

    return LuceneIDF(corpus)


class PageIndex:
    """BM25 statistics of one page, built once per Document and memoized with it."""

    def __init__(self, doc: Document):
        self.doc = doc
        self.tokens = [tokenize(s.text) for s in doc.sections]
        self.titles = [set(tokenize(s.title)) for s in doc.sections]
        # rank_bm25 divides by the corpus size; an all-empty page still needs one token somewhere.
        self.bm25 = _bm25([t or ["\x00"] for t in self.tokens])
        self.max_idf = max(self.bm25.idf.values(), default=1.0)
        #: Token sets of markdown blocks, keyed by text: passages re-read the same sections call after call.
        self.block_tokens: dict[str, list[str]] = {}

    def idf(self, term: str) -> float:
        # A term seen only in headings is as rare as the rarest body term.
        return max(self.bm25.idf.get(term, self.max_idf), 0.0)

    def rank(self, query: str) -> list[ScoredSection]:
        terms = query_terms(query)
        if not terms:
            return []
        scores = self.bm25.get_scores(terms)
        out = []
        for i, base in enumerate(scores):
            heading = sum(self.idf(t) for t in terms if t in self.titles[i])
            score = float(base) + HEADING_BOOST * heading
            if score > 0 and (base > 0 or heading > 0):
                out.append(ScoredSection(i, score))
        out.sort(key=lambda s: -s.score)
        return out


def page_index(doc: Document) -> PageIndex:
    key = ("bm25",)
    idx = doc._memo.get(key)
    if idx is None:
        idx = PageIndex(doc)
        doc._memo[key] = idx
    return idx


def _related(doc: Document, a: int, b: int) -> bool:
    """True when one section contains the other."""
    lo, hi = (a, b) if a < b else (b, a)
    return hi < doc.span(lo)[1]


def select_sections(doc: Document, ranked: list[ScoredSection], limit: int) -> list[ScoredSection]:
    """Best sections, never a section together with its ancestor or descendant; weak ones dropped."""
    chosen: list[ScoredSection] = []
    if not ranked:
        return chosen
    floor = ranked[0].score * SECONDARY_SCORE_RATIO
    for cand in ranked:
        if len(chosen) >= limit or cand.score < floor:
            break
        if any(_related(doc, cand.index, c.index) for c in chosen):
            continue
        chosen.append(cand)
    return chosen


_BLOCK_SPLIT = re.compile(r"\n{2,}")


def _blocks(text: str) -> list[tuple[int, int]]:
    """(start, end) of paragraph-like blocks of a markdown text."""
    out, pos = [], 0
    for m in _BLOCK_SPLIT.finditer(text):
        if m.start() > pos:
            out.append((pos, m.start()))
        pos = m.end()
    if pos < len(text):
        out.append((pos, len(text)))
    return out


def passages(index: PageIndex, text: str, query: str, count: int, size: int = PASSAGE_CHARS) -> list[Passage]:
    """The `count` best non-overlapping windows of `text` for the query, each grown around its best block."""
    terms = query_terms(query)
    blocks = _blocks(text)
    if not blocks or not terms:
        return []
    weights = {t: index.idf(t) or 0.1 for t in terms}
    scored = []
    for k, (s, e) in enumerate(blocks):
        chunk = text[s:e]
        toks = index.block_tokens.get(chunk)
        if toks is None:
            toks = index.block_tokens[chunk] = tokenize(chunk)
        present = set(toks)
        # Coverage of distinct terms dominates; repetitions add a little (log-damped).
        score = sum(w * (1 + 0.2 * math.log1p(toks.count(t))) for t, w in weights.items() if t in present)
        if score > 0:
            scored.append((score, k))
    scored.sort(key=lambda x: (-x[0], x[1]))
    taken: list[tuple[int, int]] = []
    for _, k in scored:
        if len(taken) >= count:
            break
        s, e = _grow(text, blocks, k, size)
        if any(s < te and ts < e for ts, te in taken):
            # Its neighbourhood is taken already: keep just the block itself, if that is still new.
            s, e = blocks[k][0], min(blocks[k][1], blocks[k][0] + size)
            if any(s < te and ts < e for ts, te in taken):
                continue
        taken.append((s, e))
    return [Passage(s, text[s:e]) for s, e in _merge(sorted(taken), text)]


def _merge(spans: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """Join windows separated only by blank lines: one passage reads better than two halves."""
    out: list[tuple[int, int]] = []
    for s, e in spans:
        if out and not text[out[-1][1] : s].strip():
            out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


def _grow(text: str, blocks: list[tuple[int, int]], k: int, size: int) -> tuple[int, int]:
    """Window around block k: the block (cut if it alone is too long), then neighbours while they fit."""
    start, end = blocks[k]
    if end - start > size:
        return start, boundary_cut(text, start, size)
    lo, hi = k, k
    while True:
        grown = False
        # The block before is usually the API signature or the lead-in sentence: prefer it.
        if lo > 0 and end - blocks[lo - 1][0] <= size:
            lo -= 1
            start = blocks[lo][0]
            grown = True
        if hi + 1 < len(blocks) and blocks[hi + 1][1] - start <= size:
            hi += 1
            end = blocks[hi][1]
            grown = True
        if not grown:
            return start, end
