"""In-page ranking: BM25 over each section's own text, a heading boost, section choice, passages."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

from docs_mcp.convert.definitions import defined_name
from docs_mcp.model.document import Document
from docs_mcp.settings import (
    DEFINITION_NAME_MIN_TERMS,
    HEADING_BOOST,
    NAMES_BOOST,
    PASSAGE_CHARS,
    PASSAGE_GAP_BRIDGE,
    PROXIMITY_SPAN,
    PROXIMITY_WEIGHT,
    SECONDARY_SCORE_RATIO,
)
from docs_mcp.text.budget import boundary_cut, finish_sentence
from docs_mcp.text.terms import query_terms, tokenize, tokenize_spans


@dataclass(frozen=True)
class ScoredSection:
    index: int
    score: float


@dataclass(frozen=True)
class Passage:
    """A slice of a section's markdown; `offset` is a start_index for get_doc_section on that section."""

    offset: int
    text: str


@cache
def _lucene_bm25() -> type:
    """rank_bm25's Okapi BM25 with Lucene's IDF, log(1 + (N - n + 0.5) / (n + 0.5)), which never goes negative.

    Okapi's own IDF is negative for a term in more than half the sections: on a page of one or two
    sections every term would count against a match, and nothing would ever be found.
    """
    from rank_bm25 import BM25Okapi  # numpy behind it: imported on first use, not at server start

    class LuceneIDF(BM25Okapi):
        def _calc_idf(self, nd: dict[str, int]) -> None:
            self.idf = {w: math.log(1 + (self.corpus_size - n + 0.5) / (n + 0.5)) for w, n in nd.items()}

    return LuceneIDF


def _bm25(corpus: list[list[str]]):
    return _lucene_bm25()(corpus)


class PageIndex:
    """BM25 statistics of one page's sections, built once per Document and memoized with it.

    A section is scored on its own text (its definitions included, code left out of the markdown excluded)
    and the definitions it holds count like a weaker heading.
    """

    def __init__(self, doc: Document):
        self.doc = doc
        self.tokens = [tokenize(s.text) for s in doc.sections]
        self.titles = [set(tokenize(s.title)) for s in doc.sections]
        #: Names a section defines (API signatures, options, glossary terms) count like a weaker heading.
        self.names = [
            set(tokenize(" ".join(s.names))) - t for s, t in zip(doc.sections, self.titles, strict=True)
        ]
        # Code left out of the markdown matches nothing but keeps its length: a section that is mostly code
        # is not a short, dense answer.
        lengths = [
            t + [_PAD] * min(s.code_words, CODE_LENGTH_CAP)
            for s, t in zip(doc.sections, self.tokens, strict=True)
        ]
        # rank_bm25 divides by the corpus size; an all-empty page still needs one token somewhere.
        self.bm25 = _bm25([t or ["\x00"] for t in lengths])
        self.max_idf = max(self.bm25.idf.values(), default=1.0)
        #: Tokens of markdown lines with their offsets, keyed by text: passages re-read the same sections.
        self.block_tokens: dict[str, list[tuple[str, int]]] = {}

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
            if not self.tokens[i]:  # a heading with no text of its own: its subsections compete instead
                continue
            heading = sum(self.idf(t) for t in terms if t in self.titles[i])
            named = sum(self.idf(t) for t in terms if t in self.names[i])
            score = float(base) + HEADING_BOOST * heading + NAMES_BOOST * named
            if score > 0 and (base > 0 or heading > 0):
                out.append(ScoredSection(i, score))
        out.sort(key=lambda s: -s.score)
        return out


#: The token that stands for a word of left-out code (no query term is ever this).
_PAD = "\x01"
#: At most this many code words count towards a section's length.
CODE_LENGTH_CAP = 5_000


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


def _lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of each non-blank line; passages are windows of consecutive lines."""
    out, pos = [], 0
    for line in text.split("\n"):
        if line.strip():
            out.append((pos, pos + len(line)))
        pos += len(line) + 1
    return out


def passages(
    index: PageIndex,
    text: str,
    query: str,
    count: int,
    size: int = PASSAGE_CHARS,
    budget: int = 0,
    reach: int = 0,
) -> list[Passage]:
    """The `count` best non-overlapping windows of whole lines (≤ size + reach chars each; near ones merge).

    Windows a few lines apart are joined with the lines between while all stay within `budget` chars
    (default count × size). A window whose last line matches and stops mid-sentence runs on to the end of
    that sentence, up to `reach` more chars (not counted in `budget`): the match there is usually what the
    reader came for.

    A window's score is the IDF-weighted coverage of distinct query terms, log-damped for repeats, plus
    the coverage of its densest PROXIMITY_SPAN chars: the sentence that answers a question usually holds
    several of its rarer words close together, where a long option list spreads them over many lines.
    """
    terms = query_terms(query)
    lines = _lines(text)
    if not lines or not terms:
        return []
    weights = {t: index.idf(t) or 0.1 for t in terms}
    hits: list[tuple[str, int]] = []  # every query-term occurrence, in text order
    first_hit = []  # index into `hits` of each line's first occurrence
    line_terms = []
    for s, e in lines:
        chunk = text[s:e]
        toks = index.block_tokens.get(chunk)
        if toks is None:
            toks = index.block_tokens[chunk] = tokenize_spans(chunk)
        first_hit.append(len(hits))
        line_hits = [(t, s + p) for t, p in toks if t in weights]
        hits.extend(line_hits)
        line_terms.append([t for t, _ in line_hits])
    first_hit.append(len(hits))
    windows = []
    counts: dict[str, int] = {}
    j = 0
    for i in range(len(lines)):
        if j < i:
            j, counts = i, {}
        while j < len(lines) and lines[j][1] - lines[i][0] <= size:
            for t in line_terms[j]:
                counts[t] = counts.get(t, 0) + 1
            j += 1
        if j == i:  # a single line longer than the window: cut at a boundary (full already: no lead-in)
            cut = boundary_cut(text, lines[i][0], size)
            kept = [h for h in hits[first_hit[i] : first_hit[i + 1]] if h[1] < cut]
            score = _score(weights, [t for t, _ in kept]) + PROXIMITY_WEIGHT * _densest(weights, kept)
            windows.append((score, i, lines[i][0], cut, False, False))
            continue
        if line_terms[i]:  # windows start on a line that matches: no leading filler
            score = _window_score(weights, counts)
            score += PROXIMITY_WEIGHT * _densest(weights, hits[first_hit[i] : first_hit[j]])
            # A window opening on a definition term starts there: the line before ends another definition.
            opens_definition = _is_definition_term(text, lines, i)
            if opens_definition:
                score += _definition_bonus(text[lines[i][0] : lines[i][1]], weights)
            ends_on_match = bool(line_terms[j - 1])
            windows.append((score, i, lines[i][0], lines[j - 1][1], not opens_definition, ends_on_match))
        for t in line_terms[i]:
            counts[t] -= 1
            if not counts[t]:
                del counts[t]
    windows.sort(key=lambda w: (-w[0], w[1]))
    taken: list[tuple[int, int]] = []
    for score, _, s, e, lead_in, ends_on_match in windows:
        if len(taken) >= count or score <= 0:
            break
        if any(s < te and ts < e for ts, te in taken):
            continue
        start = _lead_in_start(text, s, e, size) if lead_in else s
        taken.append((start, finish_sentence(text, e, reach) if ends_on_match else e))
    return [Passage(s, text[s:e]) for s, e in _merge(sorted(taken), budget or count * size)]


def _densest(weights: dict[str, float], hits: list[tuple[str, int]]) -> float:
    """The most IDF-weighted distinct query terms found within PROXIMITY_SPAN chars of each other."""
    best = total = 0.0
    counts: dict[str, int] = {}
    first = 0
    for term, pos in hits:
        if not counts.get(term):
            total += weights[term]
        counts[term] = counts.get(term, 0) + 1
        while pos - hits[first][1] > PROXIMITY_SPAN:
            gone = hits[first][0]
            counts[gone] -= 1
            if not counts[gone]:
                total -= weights[gone]
            first += 1
        best = max(best, total)
    return best


def _score(weights: dict[str, float], toks: list[str]) -> float:
    counts: dict[str, int] = {}
    for t in toks:
        counts[t] = counts.get(t, 0) + 1
    return _window_score(weights, counts)


def _window_score(weights: dict[str, float], counts: dict[str, int]) -> float:
    return sum(weights[t] * (1 + 0.2 * math.log1p(n)) for t, n in counts.items())


def _definition_bonus(term_line: str, weights: dict[str, float]) -> float:
    """Extra weight for a window that opens on a definition the query names (`statement_timeout`).

    `term_line` is a definition-list term (see _is_definition_term). Its name, without
    module qualifiers, must hold at least DEFINITION_NAME_MIN_TERMS query terms and be at least half query
    terms; then those terms count twice, as a heading's do for a section. A single shared word is too weak
    a sign: on a module's page every `zipfile.ZipFile`-like name holds the module's name.
    """
    term = term_line.replace("*", "").replace("`", "")
    name = defined_name(term).rsplit(".", 1)[-1]
    words = set(tokenize(name))
    named = words & weights.keys()
    if len(named) < DEFINITION_NAME_MIN_TERMS or 2 * len(named) < len(words):
        return 0.0
    return sum(weights[t] for t in named)


def _is_definition_term(text: str, lines: list[tuple[int, int]], i: int) -> bool:
    """Whether line i is a definition-list term: the next line starts its `:   ` definition."""
    if i + 1 >= len(lines) or text[lines[i][0] : lines[i][1]].lstrip().startswith(":"):
        return False
    return text[lines[i + 1][0] : lines[i + 1][1]].lstrip().startswith(":   ")


def _lead_in_start(text: str, s: int, e: int, size: int) -> int:
    """Start a window at the previous non-blank line when it fits: usually the signature or the lead-in."""
    end = text.rfind("\n", 0, s)
    while end > 0 and not text[text.rfind("\n", 0, end) + 1 : end].strip():
        end = text.rfind("\n", 0, end)  # step over blank lines
    if end <= 0:
        return s
    start = text.rfind("\n", 0, end) + 1
    return start if e - start <= size and text[start:end].strip() else s


def _merge(spans: list[tuple[int, int]], budget: int) -> list[tuple[int, int]]:
    """Join windows that overlap or are a few lines apart: the lines between two good windows belong to both.

    A gap is bridged only while all passages together stay within `budget`, the size the caller asked for.
    """
    out: list[tuple[int, int]] = []
    total = sum(e - s for s, e in spans)
    for s, e in spans:
        gap = s - out[-1][1] if out else 0
        # Overlapping windows always merge (it saves chars); any gap, even blank lines, must fit the budget.
        if out and (gap <= 0 or (gap < PASSAGE_GAP_BRIDGE and total + gap <= budget)):
            total += max(gap, 0)
            out[-1] = (out[-1][0], max(e, out[-1][1]))
        else:
            out.append((s, e))
    return out
