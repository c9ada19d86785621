"""Query-centred snippets for search results (≤ SNIPPET_CHARS), cut at word boundaries."""

from __future__ import annotations

import re
from functools import lru_cache

from .analysis import query_terms
from .config import SNIPPET_CHARS

#: Context kept before the first matched term of the window.
LEAD_CHARS = 30


@lru_cache(maxsize=256)
def _term_pattern(terms: tuple[str, ...]) -> re.Pattern[str]:
    """Words starting with a query stem (a stem ending in 'i' also matches 'y': happi → happy)."""
    alts = []
    for t in sorted(terms, key=len, reverse=True):
        stem = re.escape(t)
        alts.append(stem[:-1] + "[iy]" if t.endswith("i") and len(t) > 2 else stem)
    return re.compile(r"(?<!\w)(?:" + "|".join(alts) + r")\w*", re.I)


def _term_of(word: str, terms: tuple[str, ...]) -> str:
    low = word.lower()
    for t in terms:
        if low.startswith(t) or low.startswith(t[:-1]):
            return t
    return low


def snippet(text: str, query: str, size: int = SNIPPET_CHARS) -> str:
    """The window of `text` holding the most distinct query terms, trimmed to whole words, with ellipses."""
    text = " ".join(text.split())
    if len(text) <= size:
        return text
    terms = tuple(sorted(set(query_terms(query)), key=len, reverse=True))
    hits = [(m.start(), _term_of(m.group(0), terms)) for m in _term_pattern(terms).finditer(text)] if terms else []
    start = 0
    if hits:
        # Two pointers: the window [hits[i], hits[i] + size) covering the most distinct terms.
        best_i, best_cover, j = 0, 0, 0
        counts: dict[str, int] = {}
        for i in range(len(hits)):
            while j < len(hits) and hits[j][0] < hits[i][0] + size - LEAD_CHARS:
                counts[hits[j][1]] = counts.get(hits[j][1], 0) + 1
                j += 1
            if len(counts) > best_cover:
                best_i, best_cover = i, len(counts)
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
