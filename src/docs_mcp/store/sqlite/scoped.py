"""Ranking statistics of one scope on the SQLite index, so that one source's ranking never depends on another's
pages in the same file: FTS5's bm25() counts its whole table (rows, their average length, the rows holding a
term), so where a scope is not the whole index its BM25 is computed here from the scope's own rows (their
lengths from FTS5's docsize table, the terms' occurrences from an fts5vocab table), as FTS5 would compute it
over a table holding that scope alone (store/fts5.py: the same formula, the same doubles)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from docs_mcp.store.fts5 import idf, term_score, tokens
from docs_mcp.store.interface import Scope
from docs_mcp.store.sqlite.scoping import match_expression, scope_sql

#: Per full-text table: the scope's rows (FTS rowid and FTS5's stored column sizes) and its occurrences' table.
_ROWS = {
    "sections_fts": "SELECT s.id, d.sz FROM sections s JOIN pages p ON p.id=s.page_id "
    "JOIN sections_fts_docsize d ON d.id=s.id WHERE p.listed=1 AND {where}",
    "pages_fts": "SELECT p.id, d.sz FROM pages p JOIN pages_fts_docsize d ON d.id=p.id WHERE p.listed=1 AND {where}",
    # A keyword index's entries are the scope's when its index page is (listed or not: genindex is not).
    "keywords_fts": "SELECT k.id, d.sz FROM keywords k JOIN pages p ON p.id=k.page_id "
    "JOIN keywords_fts_docsize d ON d.id=k.id WHERE {where}",
}
_OCCURRENCES = {
    "sections_fts": "temp.sections_occurrences",
    "pages_fts": "temp.pages_occurrences",
    "keywords_fts": "temp.keywords_occurrences",
}
#: Made on each read connection before it turns query-only (temporary: the file's schema is unchanged).
OCCURRENCE_TABLES = [
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {name} USING fts5vocab(main, {table}, instance)"
    for table, name in _OCCURRENCES.items()
]
_FTS_COLUMNS = 4
#: Scopes' statistics memoized at most (per index; emptied past this).
SCOPE_MEMO_SIZE = 64
#: Rows of phrases memoized per scope and version of the index, at most (emptied past this: ~30 MB).
FREQ_MEMO_ROWS = 300_000
#: The full-text tables' column names, as fts5vocab names them.
_COLUMNS = {
    "sections_fts": ("title", "path", "body", "names"),
    "pages_fts": ("title", "headings", "body", "names"),
    "keywords_fts": ("term",),
}


def _size(blob: bytes) -> int:
    """A row's tokens: the sum of FTS5's per-column sizes, SQLite varints (7 bits a byte, high bit first)."""
    total = value = 0
    for byte in blob:
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            total += value
            value = 0
    return total


class ScopeStats:
    """One scope in one version of the index: whether it is the whole index, and else its own statistics."""

    def __init__(self, db: sqlite3.Connection, scope: Scope, whole: bool):
        self.db = db
        self.scope = scope
        self.whole = whole
        #: Per table: the scope's rows and their lengths in tokens, read on first use.
        self._rows: dict[str, dict[int, int]] = {}
        self._df: dict[str, int] = {}
        #: Per table, phrase, weights and columns: the scope's rows holding it and its f there.
        self._freqs: dict[tuple, dict[int, float]] = {}
        self._memo_rows = 0

    def rows(self, table: str) -> dict[int, int]:
        rows = self._rows.get(table)
        if rows is None:
            where, args = scope_sql(self.scope)
            found = self.db.execute(_ROWS[table].format(where=where), args).fetchall()
            rows = self._rows[table] = {rowid: _size(sz) for rowid, sz in found}
        return rows

    def doc_freq(self, terms: Sequence[str]) -> tuple[dict[str, int], int]:
        """The scope's sections holding each term (terms in none left out), and its number of sections."""
        rows = self.rows("sections_fts")
        for term in terms:
            if term not in self._df:
                sql = "SELECT rowid FROM sections_fts WHERE sections_fts MATCH ?"
                found = self.db.execute(sql, (match_expression([term]),))
                self._df[term] = sum(1 for (r,) in found if r in rows)
        return {t: n for t in terms if (n := self._df[t]) > 0}, len(rows) or 1

    def scored(
        self,
        table: str,
        terms: Sequence[str],
        weights: Sequence[float],
        columns: range = range(_FTS_COLUMNS),
        within: tuple[int, int] | None = None,
    ) -> list[tuple[int, float]]:
        """(rowid, BM25) of the scope's rows of `table` holding any of the terms (phrases of their tokens) in
        `columns`, best first (ties by rowid); only rowids in the range `within` when it is given."""
        rows = self.rows(table)
        if not rows:
            return []
        avgdl = sum(rows.values()) / len(rows)
        scores: dict[int, float] = {}
        for term in terms:
            pieces = tokens(term)
            if not pieces:
                continue
            freq = self._freq(table, tuple(pieces), tuple(weights), columns)
            weight = idf(len(rows), len(freq))
            for r, f in freq.items():
                if within is None or within[0] <= r <= within[1]:
                    scores[r] = scores.get(r, 0.0) + term_score(weight, f, rows[r], avgdl)
        return sorted(scores.items(), key=lambda item: (-item[1], item[0]))

    def _freq(
        self, table: str, pieces: tuple[str, ...], weights: tuple[float, ...], columns: range
    ) -> dict[int, float]:
        """The scope's rows holding the phrase, with its f: memoized for this version of the index (the
        same words come back with the next question, and one page's best section asks them again)."""
        key = (table, pieces, weights, columns)
        freq = self._freqs.get(key)
        if freq is None:
            rows = self.rows(table)
            freq = {r: f for r, f in self._phrase(table, list(pieces), weights, columns).items() if r in rows}
            self._memo_rows += len(freq)
            if self._memo_rows > FREQ_MEMO_ROWS:
                self._freqs.clear()
                self._memo_rows = len(freq)
            self._freqs[key] = freq
        return freq

    def _phrase(
        self, table: str, pieces: list[str], weights: Sequence[float], columns: range
    ) -> dict[int, float]:
        """Per row: the phrase's occurrences in `columns`, each counting its column's weight (FTS5's f)."""
        names = _COLUMNS[table]
        if len(pieces) == 1:  # nearly every term: summed inside SQLite
            cases = " ".join(f"WHEN '{names[c]}' THEN {float(weights[c])!r}" for c in columns)
            sql = f"SELECT doc, sum(CASE col {cases} ELSE 0.0 END) FROM {_OCCURRENCES[table]} WHERE term=? GROUP BY doc"
            return {doc: f for doc, f in self.db.execute(sql, pieces) if f > 0}
        # A phrase (a word FTS5 splits at an apostrophe): its tokens at consecutive offsets of one column.
        sql = f"SELECT doc, col, offset FROM {_OCCURRENCES[table]} WHERE term=?"
        at = {name: i for i, name in enumerate(names)}
        places = [
            {
                (doc, at[col], offset)
                for doc, col, offset in self.db.execute(sql, (piece,))
                if at[col] in columns
            }
            for piece in pieces
        ]
        freq: dict[int, float] = {}
        for doc, col, offset in places[0]:
            if all((doc, col, offset + k) in places[k] for k in range(1, len(pieces))):
                freq[doc] = freq.get(doc, 0.0) + weights[col]
        return freq


def scope_stats(db: sqlite3.Connection, scope: Scope, memo: dict) -> ScopeStats:
    """The scope's statistics in this snapshot: whether every page of the index is in scope (one server per
    cache dir, the usual case: FTS5's own table-wide bm25 is then the scope's, and ranking needs no join to the
    pages table), else its own counts. Made once per connection and version of the index (`memo`: the store's)."""
    version = db.execute("PRAGMA data_version").fetchone()[0]
    key = (id(db), version, scope)
    stats = memo.get(key)
    if stats is None:
        where, args = scope_sql(scope, "key")
        inside = db.execute(f"SELECT count(*) FROM pages WHERE {where}", args).fetchone()[0]
        stats = ScopeStats(db, scope, inside == db.execute("SELECT count(*) FROM pages").fetchone()[0])
        if len(memo) > SCOPE_MEMO_SIZE:
            memo.clear()
        memo[key] = stats
    return stats
