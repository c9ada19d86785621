"""Compound terms: a name written run together (`HashMap`, `ThreadLocal`) that a question spells as words."""

from __future__ import annotations

import re

from docs_mcp.text.terms import STOPWORDS, bounded_query, stem

#: Words joined into a compound at most (`thread pool executor` → `threadpoolexecutor`).
COMPOUND_WORDS = 3
#: Words of a query as the index splits them (letters and digits, a contraction one word).
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")


def compound_terms(query: str) -> list[str]:
    """Runs of 2-3 adjacent query words written as one index term (`hash map` → `hashmap`, `thread-local` →
    `threadloc`): the CamelCase or run-together name a page is titled with, when a question spells it out."""
    words = _WORD.findall(bounded_query(query).lower())
    out: dict[str, None] = {}
    for n in range(2, COMPOUND_WORDS + 1):
        for i in range(len(words) - n + 1):
            run = words[i : i + n]
            # As in query_terms: a single letter is a variable (`a < b`), not a word.
            if all(len(w) > 1 and w.isascii() and w.isalnum() and w not in STOPWORDS for w in run):
                out.setdefault(stem("".join(run)))
    return list(out)
