"""The map at the end of search_in_doc's answer: the next best units it did not show, one line each.

When the passages shown are not the answer, the answer is often a unit the page ranked just below them (an
option entry of a long list, the next section): one line names it, with its size and first words, so the next
call is one exact get_doc_section. Sections and definition entries compete on the same BM25 terms.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from docs_mcp import settings as C
from docs_mcp.model.document import Document
from docs_mcp.model.section import Ref
from docs_mcp.search.in_page.ranking import BM25_B, BM25_K1, PageIndex
from docs_mcp.text.terms import idf, query_terms, tokenize
from docs_mcp.text.tidy import clip, fold_space

#: The line that opens the map (benchmarks/quality/policies.py's agent reads the `- #id` lines under it).
MAP_HEAD = "more on this page (get_doc_section with the id):"
#: Markdown that says nothing in a one-line preview: left-out code, link targets, emphasis, pilcrows.
_NOISE = re.compile(r"\[code: [^\[\]\n]*\]|\]\([^)\s\]]*\)|[*`¶|]|-{3,}|^[ \t]*:\s+", re.M)

#: Chars per word a map line's preview may take on average (an English word and its space take about 6).
_WORD_CHARS = 8

#: Spans of a section's own markdown shown in the answer; None when the whole section was shown.
Shown = dict[int, list[tuple[int, int]] | None]


@dataclass(frozen=True)
class _Unit:
    """A section or a definition entry of the page."""

    ref: Ref
    #: An entry's span in its section's own markdown ((0, 0) for a section).
    start: int
    end: int

    def size(self, doc: Document, code: bool) -> int:
        """What get_doc_section returns for it, in chars (a section: with its subsections)."""
        if self.ref.entry >= 0:
            return self.end - self.start
        return len(doc.section_markdown(self.ref.section, code))  # renders that section alone, not the page


#: A section's units' term counts by entry index (-1: the section's text outside its entries), and each unit's
#: length in tokens.
_Terms = tuple[dict[int, Counter[str]], dict[int, int]]


def page_map(
    doc: Document,
    idx: PageIndex,
    ranked: list[int],
    query: str,
    shown: Shown,
    code: bool,
    limit: int,
    used: int,
) -> str:
    """`more on this page` and a line per next best unit not shown, within what the answer's `used` chars
    leave of its `limit` ("" if none fits).

    `ranked` are the sections holding the query's words (PageIndex.rank): their units are the candidates.
    Looking in fewer (the 5, 10 or 20 best) made the first call on a 1 MB manual faster but listed no better
    units on the tuning halves; neither did a floor on a unit's score (0.3-0.7 of the best unit's).
    """
    if not C.mechanism_on("map") or C.MAP_LINES <= 0:
        return ""
    if sum(len(s.text) for s in doc.sections) <= limit:
        return ""  # the whole page fits in one get_doc_content call of this length: nothing to point into
    lines: list[str] = []
    size = len(MAP_HEAD)  # each line adds itself and a newline
    listed: list[_Unit] = []
    for unit in _candidates(doc, idx, sorted(ranked), query_terms(query), shown, code):
        if len(lines) >= C.MAP_LINES:
            break
        if any(_inside(doc, unit, other, code) for other in listed):
            continue  # its text is in a unit listed above: the same call reads it
        line = _line(doc, unit, code)
        if used + size + len(line) + 1 > limit:
            break
        lines.append(line)
        listed.append(unit)
        size += len(line) + 1
    return f"{MAP_HEAD}\n" + "\n".join(lines) if lines else ""


def _candidates(
    doc: Document, idx: PageIndex, sections: list[int], terms: list[str], shown: Shown, code: bool
) -> Iterator[_Unit]:
    """Every unit holding a query term and not shown, best first (a section scored on its text outside its
    entries, each entry on its own text and name; ties in page order). Lazily: placing a unit renders its
    section's markdown, and the map lists only the first few."""
    wanted = set(terms)
    found: dict[tuple[int, int], dict[str, int]] = {}
    lengths: dict[tuple[int, int], int] = {}
    for i in sections:
        counted, sizes = _unit_terms(doc, i, code)
        for t in wanted:
            for k, counts in counted.items():
                if n := counts.get(t):
                    found.setdefault((i, k), {})[t] = n
                    lengths[i, k] = sizes[k]
    # IDF among the page's units, not its sections: in a section of 100 options every word of the question is
    # in the section, but few options hold it.
    units = sum(1 + len(s.entries) for s in doc.sections)
    weights = {t: idf(units, sum(1 for counts in found.values() if t in counts)) for t in wanted}
    average = sum(idx.bm25.lengths) / units  # a section's length counts its text outside entries only
    scored = []
    for (i, k), counts in found.items():
        score = _score(weights, counts, lengths[i, k], doc.unit_title(Ref(i, k)), average)
        if score > 0:
            scored.append((score, i, k))
    scored.sort(key=lambda x: (-x[0], x[1], x[2]))
    for _, i, k in scored:
        unit = _unit(doc, i, k, shown, code)
        if unit is not None and _resolves(doc, unit.ref):
            yield unit


def _unit(doc: Document, i: int, k: int, shown: Shown, code: bool) -> _Unit | None:
    """Entry k of section i (k = -1: the section), None if the answer showed it whole or it cannot be listed."""
    covered = shown.get(i, [])
    if k < 0:
        # A section shown in part is not listed either: its footer already says how to read on.
        return None if i in shown or not doc.sections[i].level else _Unit(Ref(i), 0, 0)
    span = doc.entry_spans(i, code)[k]
    if span is None or covered is None or any(s <= span[0] and span[1] <= e for s, e in covered):
        return None  # shown with its whole section, or within one passage
    return _Unit(Ref(i, k), *span)


def _unit_terms(doc: Document, i: int, code: bool) -> _Terms:
    """Section i's units by term; memoized with the page, as every query looks them up again."""
    key = ("unit_terms", i, code)
    cached = doc._memo.get(key)
    if cached is None:
        section = doc.sections[i]
        rest = Counter(tokenize(section.text))
        counted: dict[int, Counter[str]] = {}
        if section.entries:
            # The entries' words from the section's text where each knows its place: rendering the markdown
            # (HTML parsed again) was most of a page's first search_in_doc; code shown only in the markdown.
            if code or any(e.text_span is None for e in section.entries):
                own = doc.own_markdown(i, code)
                spans = doc.entry_spans(i, code)
            else:
                own, spans = section.text, [e.text_span for e in section.entries]
            for k, (entry, span) in enumerate(zip(section.entries, spans, strict=True)):
                counted[k] = Counter(tokenize(own[span[0] : span[1]]) if span else ())
                if entry.parent < 0:
                    rest.subtract(counted[k])
        counted[-1] = +rest
        # Kept as each unit's counts, not postings by term: a list of (unit, count) tuples per term took 3x
        # the memory, and a section holds few units.
        cached = doc._memo[key] = (counted, {k: c.total() for k, c in counted.items()})
    return cached


def _score(
    weights: dict[str, float], counts: dict[str, int], length: int, name: str, average: float
) -> float:
    """BM25 of a unit's query terms (`counts`; IDF: `weights`), plus the heading boost for those in its name."""
    norm = 1 - BM25_B + BM25_B * length / max(average, 1.0)
    k1 = BM25_K1
    base = sum(weights[t] * n * (k1 + 1) / (n + k1 * norm) for t, n in counts.items())
    if base <= 0:
        return 0.0  # a name alone, with no word of the question in its text, is not worth a line
    named = set(tokenize(name))
    return base + C.HEADING_BOOST * sum(w for t, w in weights.items() if t in named)


def _resolves(doc: Document, ref: Ref) -> bool:
    """Whether get_doc_section with the unit's id reads this very unit (ids shared by two units do not)."""
    if not doc.unit_id(ref).strip():
        return False
    found = doc.find(doc.unit_id(ref))
    return (found.section, found.entry) == (ref.section, ref.entry)


def _inside(doc: Document, unit: _Unit, other: _Unit, code: bool) -> bool:
    """Whether one get_doc_section call on `other` (at its default length) reads `unit` too."""
    if other.size(doc, code) > C.DEFAULT_MAX_LENGTH:
        return False
    if other.ref.entry < 0:
        first, stop = doc.span(other.ref.section)  # a section reads its subsections and its entries
        return first <= unit.ref.section < stop
    same = unit.ref.section == other.ref.section and unit.ref.entry >= 0
    return same and other.start <= unit.start and unit.end <= other.end


def _line(doc: Document, unit: _Unit, code: bool) -> str:
    """`- #id Name · 1,234 chars · first words…`: enough to tell whether the unit is the one wanted."""
    ref = unit.ref
    name = fold_space(_NOISE.sub("", doc.unit_title(ref))) or doc.unit_id(ref)
    if ref.entry >= 0:
        own = doc.own_markdown(ref.section, code)[unit.start : unit.end]
    else:
        own = doc.own_markdown(ref.section, code)
    body = own.partition("\n")[2]  # without its heading or term line: the name says that
    words = fold_space(_NOISE.sub("", body)).split(" ")
    first = " ".join(words[: C.MAP_WORDS]) + ("…" if len(words) > C.MAP_WORDS else "")
    first = clip(first, C.MAP_WORDS * _WORD_CHARS)  # CJK text has no spaces: a "word" may be a paragraph
    uid = doc.unit_id(ref)
    # An id that spells the name (`re.sub`, `creating-virtual-environments`) says it already.
    named = (
        ""
        if _slug(uid) == _slug(name) or _slug(uid).endswith(_slug(name))
        else f" {clip(name, C.TOC_ENTRY_NAME_CHARS)}"
    )
    return f"- #{uid}{named} · {unit.size(doc, code):,} chars" + (f" · {first}" if first else "")


def _slug(text: str) -> str:
    return "-".join(re.findall(r"\w+", text.casefold()))
