"""Which rows a SQLite read may see: a scope's key ranges, and a full-text query's expression."""

from __future__ import annotations

from collections.abc import Sequence

from docs_mcp.store.interface import Scope

#: Above every character: `prefix <= key < prefix + _TOP` holds exactly the keys that start with prefix.
_TOP = "\U0010ffff"


def scope_sql(scope: Scope, column: str = "p.key") -> tuple[str, list[str]]:
    """A WHERE condition on `column` and its parameters (key ranges, so the key index serves it)."""
    if not scope.prefixes:
        return "0", []
    parts, args = [], []
    for prefix in scope.prefixes:
        parts.append(f"({column} >= ? AND {column} < ?)")
        args += [prefix, prefix + _TOP]
    return "(" + " OR ".join(parts) + ")", args


def match_expression(terms: Sequence[str]) -> str:
    """FTS5 query: any of the terms, or phrases of space-separated tokens (BM25 weighs rare ones up)."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
