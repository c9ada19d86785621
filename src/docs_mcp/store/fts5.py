"""What FTS5 makes of the index's tokens and how its bm25() scores them, for both engines: PostgreSQL
reproduces FTS5 (postgres/rank.py), and SQLite scores a scope that is not its whole index in Python
(sqlite/scoped.py) with the scope's own statistics, as FTS5 would over a table holding that scope alone."""

from __future__ import annotations

import math
import re
import unicodedata
from functools import lru_cache

#: FTS5's bm25 parameters.
K1, B = 1.2, 0.75
#: PostgreSQL keeps lexemes up to this size; FTS5's terms are cut to the same so both engines see one vocabulary.
MAX_LEXEME_BYTES = 2047
#: FTS5's unicode61 tokenizer separates at apostrophes (the house tokenizer keeps "don't" whole).
_SPLIT = re.compile(r"['’]")


def _fold_char(ch: str) -> str:
    """unicode61 on one lowercase character: a few case foldings (`ς` → `σ`), then a Latin letter's one
    diacritic off (`é` → `e`; a letter with two marks keeps them)."""
    if ord(ch) < 0x1000:
        folded = ch.casefold()
        ch = folded if len(folded) == 1 else ch
    parts = unicodedata.normalize("NFD", ch)
    if len(parts) == 2 and parts[0].isascii() and unicodedata.combining(parts[1]):
        return parts[0]
    return ch


@lru_cache(maxsize=200_000)
def fold(token: str) -> tuple[str, ...]:
    """What FTS5's unicode61 makes of one stored token: split at apostrophes, letters folded as it folds them."""
    if not token.isascii():
        token = "".join(map(_fold_char, token))
    return tuple(p for p in _SPLIT.split(token) if p and len(p.encode()) <= MAX_LEXEME_BYTES)


def tokens(column: str) -> list[str]:
    """The terms of one stored full-text column (tokens joined by spaces)."""
    return [t for token in column.split() for t in fold(token)]


def idf(rows: int, holding: int) -> float:
    """FTS5's IDF: ln((N − n + ½) / (n + ½)), floored at 1e-6 (fts5_aux.c)."""
    value = math.log((rows - holding + 0.5) / (holding + 0.5))
    return value if value > 0 else 1e-6


def term_score(weight: float, f, length, avgdl: float):
    """One term's share of a row's BM25, in fts5_aux.c's order of operations (the same doubles): `f` the
    column-weighted count, `length` the row's tokens; floats or numpy arrays."""
    return weight * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + B * length / avgdl)))
