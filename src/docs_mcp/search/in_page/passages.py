"""Passages: the best windows of whole lines in one section's markdown for a query, near ones joined."""

from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import dataclass, replace
from operator import itemgetter

from docs_mcp.convert.definitions import defined_name
from docs_mcp.search.in_page.ranking import (
    PASSAGE_HEAD,
    PASSAGE_WEIGHT,
    PIECE_MEMO_SIZE,
    PageIndex,
    in_markdown,
)
from docs_mcp.search.semantic.signal import blend, span_cosines
from docs_mcp.settings import (
    DEFINITION_NAME_MIN_TERMS,
    PASSAGE_CHARS,
    PASSAGE_GAP_BRIDGE,
    PROXIMITY_SPAN,
    PROXIMITY_WEIGHT,
    mechanism_on,
)
from docs_mcp.text.budget import boundary_cut, finish_sentence, last_line_end
from docs_mcp.text.terms import places, query_terms, tokenize, tokenize_spans


@dataclass(frozen=True)
class Passage:
    """A slice of a section's markdown; `offset` is a start_index for get_doc_section on that section."""

    offset: int
    text: str


@dataclass(frozen=True)
class _Lines:
    """A text's non-blank lines and the query terms found on them."""

    #: (start, end) of each non-blank line.
    spans: list[tuple[int, int]]
    #: Every query-term occurrence (term, offset), in text order.
    hits: list[tuple[str, int]]
    #: Index into `hits` of each line's first occurrence, and one past the last line's.
    first_hit: list[int]
    #: The query terms on each line, in order.
    terms: list[list[str]]

    def hits_of(self, i: int, j: int) -> list[tuple[str, int]]:
        """The occurrences on lines i to j - 1."""
        return self.hits[self.first_hit[i] : self.first_hit[j]]


@dataclass(frozen=True)
class _Window:
    """A candidate passage: lines from `line` on, chars start-end, and how it may grow when taken."""

    score: float
    line: int
    start: int
    end: int
    #: Whether it may start at the line before (a signature or lead-in).
    lead_in: bool
    #: Whether its last line matches (it may then run on to the end of the sentence).
    ends_on_match: bool


def passages(
    index: PageIndex,
    text: str,
    query: str,
    count: int,
    size: int = PASSAGE_CHARS,
    budget: int = 0,
    reach: int = 0,
    run_on: int = 0,
) -> list[Passage]:
    """The `count` best non-overlapping windows of whole lines (≤ size + reach chars each; near ones merge).

    Windows a few lines apart are joined with the lines between while all stay within `budget` chars
    (default count × size). A window whose last line matches and stops mid-sentence runs on to the end of
    that sentence, up to `reach` more chars (not counted in `budget`): the match there is usually what the
    reader came for. The best window also runs on by up to `run_on` chars of whole lines (added to `budget`).

    A window's score is the IDF-weighted coverage of distinct query terms, log-damped for repeats, plus
    the coverage of its densest PROXIMITY_SPAN chars: the sentence that answers a question usually holds
    several of its rarer words close together, where a long option list spreads them over many lines.
    """
    weights = {t: index.idf(t) or 0.1 for t in query_terms(query)}
    # A literal (`2>&1`) is a term of its own, found in the text as written (never a token: no clash).
    literals = {
        lit: index.literal_idf(p)
        for lit, p in index.literals(query).items()
        if lit in text and in_markdown(lit)
    }
    weights.update(literals)
    if not weights:
        return []
    lines = _read_lines(index, text, weights, list(literals))
    windows = sorted(_windows(text, lines, weights, size), key=lambda w: (-w.score, w.line))
    windows = _by_meaning(index, text, query, lines, windows)
    taken: list[tuple[int, int]] = []
    for w in windows:
        if len(taken) >= count or w.score <= 0:
            break
        if any(w.start < te and ts < w.end for ts, te in taken):
            continue
        start = _lead_in_start(text, w.start, w.end, size) if w.lead_in else w.start
        end = finish_sentence(text, w.end, reach) if w.ends_on_match else w.end
        if not taken:  # the best window: the answer often follows the lines that matched
            end = max(end, last_line_end(text, end, run_on))
        taken.append((start, end))
    return [Passage(s, text[s:e]) for s, e in _merge(sorted(taken), (budget or count * size) + run_on)]


def _by_meaning(
    index: PageIndex, text: str, query: str, lines: _Lines, windows: list[_Window]
) -> list[_Window]:
    """The PASSAGE_HEAD best windows re-ordered by their cosine with the query blended in (the answer is often
    worded unlike the question); each takes the score of its new place, so as many stay above zero."""
    head = windows[:PASSAGE_HEAD]
    if len(head) < 2 or not mechanism_on("passage-semantic"):
        return windows
    if len(index.piece_sums) > PIECE_MEMO_SIZE:
        index.piece_sums.clear()
    cosine = span_cosines(query, text, [_pieces(lines, w) for w in head], index.piece_sums)
    if cosine is None:
        return windows
    mixed = blend([w.score for w in head], [float(c) for c in cosine], PASSAGE_WEIGHT)
    order = sorted(range(len(head)), key=lambda k: -mixed[k])
    return [replace(head[k], score=w.score) for k, w in zip(order, head, strict=True)] + windows[len(head) :]


def _pieces(lines: _Lines, w: _Window) -> list[tuple[int, int]]:
    """A window's text in char ranges that windows share: its first line, then each next line with the line
    breaks before it (tokenized apart, they give the whole text's tokens and one start token each)."""
    spans, first = lines.spans, w.line
    if w.end <= spans[first][1]:  # cut inside one long line
        return [(w.start, w.end)]
    last = bisect_left(spans, w.end, lo=first, key=lambda span: span[1])
    return [spans[first], *((spans[k - 1][1], spans[k][1]) for k in range(first + 1, last + 1))]


def _read_lines(index: PageIndex, text: str, weights: dict[str, float], literals: list[str]) -> _Lines:
    """The text's non-blank lines and where the query terms (the keys of `weights`) and literals occur."""
    spans, pos = [], 0
    for line in text.split("\n"):
        if line.strip():
            spans.append((pos, pos + len(line)))
        pos += len(line) + 1
    hits: list[tuple[str, int]] = []
    first_hit, terms = [], []
    for s, e in spans:
        chunk = text[s:e]
        toks = index.block_tokens.get(chunk)
        if toks is None:
            toks = index.block_tokens[chunk] = tuple(tokenize(chunk))
        first_hit.append(len(hits))
        # Offsets only on the lines that match: finding every token's took two thirds of a 3 MB section's scan.
        line_hits = []
        if not weights.keys().isdisjoint(toks):
            line_hits = [(t, s + p) for t, p in tokenize_spans(chunk) if t in weights]
        if literals:
            found = [(lit, s + p) for lit in literals for p in places(lit, chunk)]
            line_hits = sorted(line_hits + found, key=itemgetter(1))
        hits.extend(line_hits)
        terms.append([t for t, _ in line_hits])
    first_hit.append(len(hits))
    return _Lines(spans, hits, first_hit, terms)


def _windows(text: str, lines: _Lines, weights: dict[str, float], size: int) -> list[_Window]:
    """A window of at most `size` chars from each line that matches (two pointers over the lines)."""
    spans, out = lines.spans, []
    counts: dict[str, int] = {}
    j = 0
    for i in range(len(spans)):
        if j < i:
            j, counts = i, {}
        while j < len(spans) and spans[j][1] - spans[i][0] <= size:
            for t in lines.terms[j]:
                counts[t] = counts.get(t, 0) + 1
            j += 1
        if j == i:  # a single line longer than the window: cut at a boundary (full already: no lead-in)
            cut = boundary_cut(text, spans[i][0], size)
            kept = [h for h in lines.hits_of(i, i + 1) if h[1] < cut]
            score = _score(weights, [t for t, _ in kept]) + PROXIMITY_WEIGHT * _densest(weights, kept)
            out.append(_Window(score, i, spans[i][0], cut, False, False))
            continue
        if lines.terms[i]:  # windows start on a line that matches: no leading filler
            out.append(_window(text, lines, i, j, weights, counts))
        for t in lines.terms[i]:
            counts[t] -= 1
            if not counts[t]:
                del counts[t]
    return out


def _window(
    text: str, lines: _Lines, i: int, j: int, weights: dict[str, float], counts: dict[str, int]
) -> _Window:
    """The window of lines i to j - 1, whose query terms are counted in `counts`."""
    spans = lines.spans
    score = _window_score(weights, counts)
    score += PROXIMITY_WEIGHT * _densest(weights, lines.hits_of(i, j))
    # A window opening on a definition term starts there: the line before ends another definition.
    opens_definition = _is_definition_term(text, spans, i)
    if opens_definition:
        score += _definition_bonus(text[spans[i][0] : spans[i][1]], weights)
    return _Window(score, i, spans[i][0], spans[j - 1][1], not opens_definition, bool(lines.terms[j - 1]))


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
