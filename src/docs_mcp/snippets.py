"""Query-centred snippets for search results (≤ SNIPPET_CHARS), cut at word boundaries."""

from __future__ import annotations

import re

from .analysis import query_terms, tokenize
from .config import SNIPPET_CHARS

_WORD = re.compile(r"\S+")


def snippet(text: str, query: str, size: int = SNIPPET_CHARS) -> str:
    """The window of `text` holding the most distinct query terms, trimmed to whole words, with ellipses."""
    text = " ".join(text.split())
    if len(text) <= size:
        return text
    terms = set(query_terms(query))
    words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
    hits = [k for k, (s, e) in enumerate(words) if terms & set(tokenize(text[s:e]))]
    best_start = 0
    if hits:
        best, best_cover = hits[0], -1
        for k in hits:
            # Window starting a few words before this hit: count distinct terms it covers.
            s0 = words[max(0, k - 3)][0]
            covered = set()
            for j in hits:
                if words[j][0] >= s0 and words[j][1] <= s0 + size - 2:
                    covered |= terms & set(tokenize(text[words[j][0]:words[j][1]]))
            if len(covered) > best_cover:
                best, best_cover = k, len(covered)
        best_start = words[max(0, best - 3)][0]
    budget = size - 2  # room for the ellipses
    end = best_start + budget
    if end >= len(text):
        best_start = max(0, len(text) - budget)
        end = len(text)
    chunk = text[best_start:end]
    if best_start > 0 and " " in chunk:
        chunk = chunk[chunk.index(" ") + 1:] if not text[best_start - 1].isspace() else chunk
    if end < len(text) and " " in chunk:
        chunk = chunk[: chunk.rindex(" ")]
    return ("…" if best_start > 0 else "") + chunk + ("…" if end < len(text) else "")
