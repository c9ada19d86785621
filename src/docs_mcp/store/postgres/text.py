"""Full-text rows as PostgreSQL sees them: a tsvector literal built from the indexed tokens themselves (no
PostgreSQL text search configuration), so matching and BM25 see exactly the terms SQLite's FTS5 sees."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

#: tsvector weight labels of the four full-text columns (title, path/headings, body, names).
LABELS = "ABCD"
#: PostgreSQL keeps at most this many positions per lexeme, up to this position, lexemes up to this size.
MAX_POSITIONS, MAX_POSITION, MAX_LEXEME_BYTES = 256, 16383, 2047
#: FTS5's unicode61 tokenizer separates at apostrophes (the house tokenizer keeps "don't" whole).
_SPLIT = re.compile(r"['’]")
#: Between a lexeme and the number of its overflow lexeme (no token holds it).
OVERFLOW = "\x01"


def fold(token: str) -> list[str]:
    """What FTS5's unicode61 makes of one stored token: split at apostrophes, Latin diacritics removed."""
    out = []
    for part in _SPLIT.split(token.lower()):
        if any(ord(ch) < 0x300 and not ch.isascii() for ch in part):
            part = "".join(
                c
                for ch in part
                for c in (unicodedata.normalize("NFD", ch) if ord(ch) < 0x300 else ch)
                if not unicodedata.combining(c)
            )
        if part and len(part.encode()) <= MAX_LEXEME_BYTES:
            out.append(part)
    return out


def tokens(column: str) -> list[str]:
    """The terms of one stored full-text column (tokens joined by spaces)."""
    return [t for token in column.split() for t in fold(token)]


def tsvector(columns: Sequence[str]) -> tuple[str, int]:
    """The tsvector literal of a row's four columns and its length in tokens (FTS5's document length).

    Each occurrence is one position labelled with its column's weight. The names column (D) keeps its real
    positions, so a phrase of names matches with `<->`; the other columns only count occurrences, numbered per
    lexeme after the names' positions (a long body would pass PostgreSQL's last position, 16383). Past 256
    occurrences (PostgreSQL's limit per lexeme) they go on under OVERFLOW lexemes, so frequencies stay exact."""
    positions: dict[str, list[str]] = {}
    names = tokens(columns[3])
    columns_in_order = [("D", names), *zip(LABELS[:3], map(tokens, columns[:3]), strict=True)]
    for label, terms in columns_in_order:
        for i, term in enumerate(terms, 1):
            held, lexeme, k = positions.setdefault(term, []), term, 0
            while len(held) >= MAX_POSITIONS:
                k += 1
                lexeme = f"{term}{OVERFLOW}{k}"
                held = positions.setdefault(lexeme, [])
            at = i if label == "D" and k == 0 else len(held) + 1 + (len(names) if k == 0 else 0)
            held.append(f"{min(at, MAX_POSITION)}{label}")
    length = sum(len(terms) for _, terms in columns_in_order)
    return " ".join(f"{quote(t)}:{','.join(p)}" for t, p in positions.items()), length


def quote(lexeme: str) -> str:
    """A lexeme as a tsvector/tsquery literal quotes it."""
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def query(terms: Sequence[str], names_only: bool = False) -> tuple[str, list[list[str]]]:
    """The tsquery matching any of the terms (a term of several tokens is a phrase), and each term's pieces."""
    label = ":D" if names_only else ""
    pieces = [tokens(t) for t in terms]
    pieces = [p for p in pieces if p]
    parts = ["(" + " <-> ".join(quote(p) + label for p in ps) + ")" for ps in pieces]
    return " | ".join(parts), pieces
