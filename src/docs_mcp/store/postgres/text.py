"""Full-text rows as PostgreSQL sees them: a tsvector literal built from the indexed tokens themselves (no
PostgreSQL text search configuration), so matching and BM25 see exactly the terms SQLite's FTS5 sees."""

from __future__ import annotations

from collections.abc import Sequence

from docs_mcp.store.fts5 import fold as fold  # re-exported: the tokens both engines see
from docs_mcp.store.fts5 import tokens
from docs_mcp.store.pagerows import unpack_text

#: tsvector weight labels of the four full-text columns (title, path/headings, body, names).
LABELS = "ABCD"
#: PostgreSQL keeps at most this many positions per lexeme, up to this position.
MAX_POSITIONS, MAX_POSITION = 256, 16383


def column_counts(columns: Sequence[str]) -> tuple[int, dict[str, list[int]]]:
    """A full-text row's length in tokens (FTS5's document length) and its term frequencies {term: [title,
    path, body, names]} (BM25's inputs)."""
    counts: dict[str, list[int]] = {}
    length = 0
    for column, value in enumerate(columns):
        terms = tokens(value)
        length += len(terms)
        for term in terms:
            counts.setdefault(term, [0, 0, 0, 0])[column] += 1
    return length, counts


def tsvector(columns: Sequence[str]) -> tuple[str, int]:
    """A row's four columns as a tsvector literal (for a GIN index: matching) and its length in tokens.

    Each occurrence is one position labelled with its column's weight, at most 256 per lexeme (PostgreSQL's
    limit). The names column (D) keeps its real positions, so a phrase of names matches with `<->`; the other
    columns' occurrences are numbered per lexeme after them."""
    positions: dict[str, list[str]] = {}
    names = tokens(columns[3])
    columns_in_order = [(3, names), *((c, tokens(columns[c])) for c in range(3))]
    for column, terms in columns_in_order:
        for i, term in enumerate(terms, 1):
            held = positions.setdefault(term, [])
            if len(held) < MAX_POSITIONS:
                at = i if column == 3 else len(held) + 1 + len(names)
                held.append(f"{min(at, MAX_POSITION)}{LABELS[column]}")
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


def stored_text(plain: str, packed: bytes | None) -> str:
    """A section's text as stored: zlib'd in `ztext` when that was smaller (pagerows.pack_text), else plain."""
    return unpack_text(bytes(packed)) if packed is not None else plain
