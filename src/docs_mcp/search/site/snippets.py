"""Query-centred snippets for search results (≤ SNIPPET_CHARS), cut at word boundaries."""

from __future__ import annotations

import re
from functools import lru_cache

from docs_mcp.settings import SNIPPET_CHARS
from docs_mcp.text.cjk import CJK_CHAR
from docs_mcp.text.terms import query_terms
from docs_mcp.text.tidy import fold_space

#: Context kept before the first matched term of the window.
LEAD_CHARS = 30
#: The window that picks where a snippet starts; the snippet runs on from there to its size. Picked at the
#: full size, a window holding more of the words may start elsewhere, and lose what the smaller one showed.
FOCUS_CHARS = 200


@lru_cache(maxsize=256)
def _term_pattern(terms: tuple[str, ...]) -> tuple[re.Pattern[str], tuple[str, ...]]:
    """A regex with one group per term (words start with the stem; 'happi' also matches 'happy') and the
    term of each group, so a match names its term through `lastindex` without re-reading the word."""
    words, cjk = [], []
    for t in sorted(terms, key=len, reverse=True):
        if CJK_CHAR.match(t):  # bigrams sit inside runs of CJK text: no word boundary to anchor on
            cjk.append(t)
        else:
            words.append(t)
    groups = [
        "(" + (re.escape(t)[:-1] + "[iy]" if t.endswith("i") and len(t) > 2 else re.escape(t)) + ")"
        for t in words
    ]
    # One shared lookbehind: a lookbehind per alternative makes the scan several times slower.
    alts = [r"(?<!\w)(?:" + "|".join(groups) + r")\w*"] if groups else []
    alts += ["(" + re.escape(t) + ")" for t in cjk]
    names = words + cjk
    return re.compile("|".join(alts), re.I), tuple(names)


def _span(hits: list[tuple[int, str]], i: int, j: int, distinct: int) -> int:
    """Characters from hits[i] to where all `distinct` terms of hits[i:j] have been seen."""
    seen: set[str] = set()
    for pos, term in hits[i:j]:
        seen.add(term)
        if len(seen) == distinct:
            return pos - hits[i][0]
    return hits[j - 1][0] - hits[i][0]


def snippet(text: str, query: str, size: int = SNIPPET_CHARS) -> str:
    """`size` chars of `text` from the FOCUS_CHARS window holding the most distinct query terms, trimmed to
    whole words, with ellipses."""
    if "\n" in text or "\t" in text or "  " in text:  # index text is normalized already: skip the copy
        text = fold_space(text)
    if len(text) <= size:
        return text
    terms = tuple(sorted(set(query_terms(query)), key=len, reverse=True))
    pattern, names = _term_pattern(terms) if terms else (None, ())
    hits = [(m.start(), names[m.lastindex - 1]) for m in pattern.finditer(text)] if terms else []
    start = 0
    if hits:
        # Two pointers: the window [hits[i], hits[i] + size) covering the most distinct terms; among equals,
        # the one whose terms sit closest together (the phrase itself, not a run-up to it).
        best_i, best_key, j = 0, (0, 0), 0
        counts: dict[str, int] = {}
        for i in range(len(hits)):
            while j < len(hits) and hits[j][0] < hits[i][0] + min(size, FOCUS_CHARS) - LEAD_CHARS:
                counts[hits[j][1]] = counts.get(hits[j][1], 0) + 1
                j += 1
            if len(counts) >= best_key[0]:
                key = (len(counts), -_span(hits, i, j, len(counts)))
                if key > best_key:
                    best_i, best_key = i, key
            term = hits[i][1]
            counts[term] -= 1
            if not counts[term]:
                del counts[term]
        start = max(0, hits[best_i][0] - LEAD_CHARS)
    budget = size - 2  # room for the ellipses
    if start + budget >= len(text):
        start = max(0, len(text) - budget)
    end = min(len(text), start + budget)
    chunk = text[start:end]
    if start > 0 and " " in chunk and not text[start - 1].isspace():
        chunk = chunk[chunk.index(" ") + 1 :]
    if end < len(text) and " " in chunk:
        chunk = chunk[: chunk.rindex(" ")]
    return ("…" if start > 0 else "") + chunk + ("…" if end < len(text) else "")
