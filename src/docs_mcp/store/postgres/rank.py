"""FTS5's BM25 over the PostgreSQL index's packed term rows (postings.py), summed with numpy.

The rows of the query's terms are read in one statement, each flagged in or out of the scope. Per matched row
and query term, the frequency f is the sum of the column weights times the term's count in each column; the
row's length is its token count. The statistics are the scope's own, as FTS5 would count a table holding the
scope alone (SQLite computes the same where its table holds more: sqlite/scoped.py): a term's n counts the
scope's rows holding it, N and the average length its full-text rows and their tokens (the whole index's kept
in `fts_totals` by every write). score = Σ idf · f(k1+1) / (f + k1(1 − b + b·len/avglen)), idf = ln((N − n +
½) / (n + ½)) floored at 1e-6, as fts5_aux.c computes it (store/fts5.py). A term of several tokens (a word with an apostrophe:
FTS5 splits it) matches a row holding all of them, with its rarest token's frequency; a names phrase (`names
only`) also needs them in a row in that order in the names column, checked on the stored names.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from docs_mcp.settings import PAGE_WEIGHTS, SECTION_WEIGHTS
from docs_mcp.store.fts5 import idf, term_score
from docs_mcp.store.interface import GENERATION_META, Scope
from docs_mcp.store.postgres import text
from docs_mcp.store.postgres.postings import decode
from docs_mcp.text.terms import tokenize

if TYPE_CHECKING:
    import psycopg

T = TypeVar("T")
#: Above every character: `prefix <= key < prefix + _TOP` (collation C) holds exactly the keys under prefix.
_TOP = "\U0010ffff"
#: A section's key while scoring: page id × this + its ord (ords stay below it; page ids below 2**31).
_ORD_SPAN = 1 << 32
_ROWS = "SELECT term, bundle, data FROM terms WHERE term = ANY(%s)"
#: The pages named by the rows read: listed ones still in the index, with their length, in the scope or not.
_PAGES = "SELECT p.id, p.len, {where} FROM pages p WHERE p.id = ANY(%(ids)s) AND p.len IS NOT NULL"
#: Of a scope's listed pages: how many full-text rows of each kind, and their tokens.
_SCOPE_TOTALS = (
    "SELECT count(*), coalesce(sum(p.len), 0)::bigint, coalesce(sum(s.n), 0)::bigint, "
    "coalesce(sum(s.tokens), 0)::bigint FROM pages p LEFT JOIN LATERAL (SELECT count(*) AS n, sum(len) AS tokens "
    "FROM sections WHERE page_id = p.id AND len IS NOT NULL) s ON true WHERE p.len IS NOT NULL AND {where}"
)
#: Scopes' totals and keyword counts memoized at most (per store; emptied past this).
_TOTALS_MEMO_SIZE = 64


def scope_sql(scope: Scope, column: str = "p.key") -> tuple[str, dict[str, str]]:
    """A WHERE condition on `column` and its named parameters (key ranges, so the key index serves it)."""
    if not scope.prefixes:
        return "false", {}
    parts, args = [], {}
    for i, prefix in enumerate(scope.prefixes):
        parts.append(f"({column} >= %(lo{i})s AND {column} < %(hi{i})s)")
        args[f"lo{i}"], args[f"hi{i}"] = prefix, prefix + _TOP
    return "(" + " OR ".join(parts) + ")", args


@dataclass
class _Matches:
    """Of one query term: the rows (page ids, or section keys) holding it, their f and length, in scope or not."""

    keys: np.ndarray
    f: np.ndarray
    length: np.ndarray
    in_scope: np.ndarray


class Ranking:
    """BM25 queries of one snapshot's connection.

    Within one snapshot nothing read can change, so each term's rows, the totals and the pages' lengths are
    read once: a search asked ~38 statements, a third of them for term rows it had read already (the coverage
    bonus and rank safety ask whether pages hold the query's words); each statement costs both processes CPU.
    """

    def __init__(self, db: psycopg.Connection, totals_memo: dict, meta: Callable[[str], str | None]):
        self.db = db
        #: The snapshot's meta reads (reads.py: every short value in one statement).
        self._meta = meta
        #: Shared by the store's snapshots: each scope's totals and keyword counts, per state (`per_state`).
        self._totals_memo = totals_memo
        #: Per term: its rows (bundle, packed data), in the order read.
        self._term_rows: dict[str, list[tuple[int, bytes]]] = {}
        #: Per term: the pages whose own text holds it (page counts not all 0), of the rows read.
        self._holders: dict[str, frozenset[int]] = {}
        self._fts_totals: dict[str, tuple[int, float]] | None = None
        self._generation: str | None = None
        #: Per page condition: page id -> (length, in scope), None for a page gone or unlisted.
        self._pages: dict[tuple, dict[int, tuple[int, bool] | None]] = {}

    def _totals(self, kind: str) -> tuple[int, float]:
        if self._fts_totals is None:
            rows = self.db.execute("SELECT kind, rows, tokens FROM fts_totals").fetchall()
            self._fts_totals = {k: (n, (tokens / n if n else 1.0)) for k, n, tokens in rows}
        # A kind with no row (an empty index) reads as FTS5 reads its empty table.
        return self._fts_totals.get(kind, (0, 1.0))

    def per_state(self, key: tuple, count: Callable[[], T]) -> T:
        """`count()` once per state of the index: its generation and totals (an older writer starts no generation)."""
        if self._generation is None:
            self._generation = self._meta(GENERATION_META) or ""
        self._totals("pages")
        full = (key, self._generation, tuple(sorted(self._fts_totals.items())))  # type: ignore[union-attr]
        found = self._totals_memo.get(full)
        if found is None:
            if len(self._totals_memo) > _TOTALS_MEMO_SIZE:
                self._totals_memo.clear()
            found = self._totals_memo[full] = count()
        return found

    def scope_totals(self, kind: str, where: str, args: dict) -> tuple[int, float]:
        """N and the average length of the scope's full-text rows of this kind: the whole index's when the
        scope holds every row. Counted once per state of the index."""
        sql, key = _SCOPE_TOTALS.format(where=where), (where, tuple(sorted(args.items())))
        row = self.per_state(key, lambda: self.db.execute(sql, args).fetchone())
        n, tokens = row[:2] if kind == "pages" else row[2:]
        return n, (tokens / n if n else 1.0)

    def whole(self, where: str, args: dict) -> bool:
        """Whether the scope holds every full-text row of the index (its statistics are then the index's)."""
        return all(self.scope_totals(k, where, args)[0] == self._totals(k)[0] for k in ("pages", "sections"))

    def section_counts(self, terms: Sequence[str], where: str, args: dict) -> dict[str, int]:
        """The scope's full-text sections holding each term (every token of it)."""
        pieces = {t: p for t in terms if (p := text.tokens(t))}
        lexemes = sorted({p for ps in pieces.values() for p in ps})
        if not lexemes:
            return {}
        data, terms_of = self._rows(lexemes, where, args)
        by_term: dict[str, list[int]] = {}
        for seg, row in enumerate(data.row.tolist()):
            by_term.setdefault(terms_of[row], []).append(seg)
        return {
            t: int(self._term_matches("sections", ps, by_term, data, (1, 1, 1, 1)).in_scope.sum())
            for t, ps in pieces.items()
        }

    def term_rows(self, lexemes: Sequence[str]) -> list[tuple[str, int, bytes]]:
        """(term, bundle, data) of the rows of these terms, those not read yet in one statement."""
        missing = [t for t in lexemes if t not in self._term_rows]
        if missing:
            for t in missing:
                self._term_rows[t] = []
            for term, bundle, data in self.db.execute(_ROWS, (missing,)).fetchall():
                self._term_rows[term].append((bundle, bytes(data)))
        return [(t, b, d) for t in lexemes for b, d in self._term_rows[t]]

    def holding(self, pieces: Sequence[str], page_ids: Sequence[int]) -> list[int] | None:
        """Those of these pages holding every one of the tokens, from the rows read; None when a token's rows
        were not read in this snapshot (the caller asks the database for these pages alone)."""
        if any(p not in self._term_rows for p in pieces):
            return None
        sets = []
        for piece in pieces:
            held = self._holders.get(piece)
            if held is None:
                rows = self._term_rows[piece]
                data = decode([d for _, d in rows], [b for b, _ in rows])
                held = self._holders[piece] = frozenset(data.page_id[data.page.any(axis=1)].tolist())
            sets.append(held)
        return [pid for pid in dict.fromkeys(page_ids) if all(pid in held for held in sets)]

    def _live(self, ids: list[int], where: str, args: dict) -> list[tuple[int, int, bool]]:
        """(id, length, in scope) of those of these pages still listed in the index, by id."""
        known = self._pages.setdefault((where, tuple(sorted(args.items()))), {})
        missing = [i for i in ids if i not in known]
        if missing:
            known.update(dict.fromkeys(missing))
            for pid, length, scoped in self.db.execute(_PAGES.format(where=where), {**args, "ids": missing}):
                known[pid] = (length, scoped)
        return sorted((i, *v) for i in ids if (v := known[i]) is not None)

    def _term_matches(
        self, kind: str, pieces: list[str], rows: dict[str, list[int]], data, weights
    ) -> _Matches:
        """The rows one term matches: each of its tokens present (f > 0), f the smallest of theirs."""
        per_piece = []
        for piece in pieces:
            idx = np.asarray(rows.get(piece, []), np.int64)
            if kind == "pages":
                counts = data.page[idx]
                keys, length = data.page_ids[idx], data.page_len[idx]
                in_scope = data.in_scope[idx]
            else:
                chosen = np.zeros(len(data.row), bool)
                chosen[idx] = True
                sel = np.flatnonzero(chosen[data.section_seg])
                counts, row = data.section[sel, 2:], data.section_seg[sel]
                keys = data.page_ids[row] * _ORD_SPAN + data.section[sel, 0]
                length, in_scope = data.section[sel, 1], data.in_scope[row]
            f = counts @ np.asarray(weights, np.float64)
            keep = f > 0
            per_piece.append(_Matches(keys[keep], f[keep], length[keep], in_scope[keep]))
        if len(per_piece) == 1:
            return per_piece[0]
        # Rare (a word with an apostrophe): matched row by row.
        places = [dict(zip(m.keys.tolist(), range(len(m.keys)), strict=True)) for m in per_piece]
        common = sorted(set(places[0]).intersection(*places[1:]))
        first = [places[0][k] for k in common]
        f = [min(m.f[at[k]] for m, at in zip(per_piece, places, strict=True)) for k in common]
        m0 = per_piece[0]
        return _Matches(
            np.asarray(common, np.int64), np.asarray(f, np.float64), m0.length[first], m0.in_scope[first]
        )

    def scored(
        self,
        kind: str,
        terms: Sequence[str],
        where: str,
        args: dict,
        limit: int,
        names_only: bool = False,
        statistics: tuple[str, dict] | None = None,
    ) -> list[tuple[int, float]]:
        """(row key, score) of the best rows matching any term under `where`, best first: a page's id, or a
        section's page id × 2**32 + its ord (`section_key`). The statistics are those of the rows under
        `where`, or under `statistics` (a condition and its parameters: one page's best section by its scope's)."""
        pieces = [p for p in (text.tokens(t) for t in terms) if p]
        if not pieces:
            return []
        lexemes = sorted({p for ps in pieces for p in ps})
        data, terms_of = self._rows(lexemes, where, args)
        by_term: dict[str, list[int]] = {}
        for seg, row in enumerate(data.row.tolist()):
            by_term.setdefault(terms_of[row], []).append(seg)
        weights = SECTION_WEIGHTS if kind == "sections" else PAGE_WEIGHTS
        if names_only:  # a column filter: only the names column's occurrences count
            weights = (0, 0, 0, weights[3])
        n_rows, avgdl = self.scope_totals(kind, *(statistics or (where, args)))
        holding = self.section_counts(terms, *statistics) if statistics else {}
        keys, scores = [], []
        for term, term_pieces in zip([t for t in terms if text.tokens(t)], pieces, strict=True):
            m = self._term_matches(kind, term_pieces, by_term, data, weights)
            if names_only and len(term_pieces) > 1:
                m = self._in_order(m, term_pieces)
            weight = idf(n_rows, holding[term] if statistics else int(m.in_scope.sum()))
            f = m.f[m.in_scope]
            keys.append(m.keys[m.in_scope])
            scores.append(term_score(weight, f, m.length[m.in_scope], avgdl))
        all_keys, inverse = np.unique(np.concatenate(keys), return_inverse=True)
        total = np.bincount(inverse, weights=np.concatenate(scores), minlength=len(all_keys))
        best = np.lexsort((all_keys, -total))[:limit]
        return [(int(all_keys[i]), float(total[i])) for i in best]

    def _rows(self, lexemes: list[str], where: str, args: dict) -> tuple[_Rows, list[str]]:
        """The rows of these terms, decoded; entries of pages gone (left in their bundle) dropped."""
        fetched = self.term_rows(lexemes)
        data = decode([d for _, _, d in fetched], [b for _, b, _ in fetched])
        pages = self._live(np.unique(data.page_id).tolist(), where, args)
        live = np.fromiter((p for p, _, _ in pages), np.int64, len(pages))
        at = np.clip(np.searchsorted(live, data.page_id), 0, max(len(live) - 1, 0))
        found = (live[at] == data.page_id) if len(live) else np.zeros(len(data.page_id), bool)
        data = data.only(found)
        at = at[found]
        length = np.fromiter((n for _, n, _ in pages), np.float64, len(pages))
        scoped = np.fromiter((bool(s) for _, _, s in pages), bool, len(pages))
        rows = _Rows(
            data.row, data.page_id, length[at], scoped[at], data.page, data.section_seg, data.section
        )
        return rows, [t for t, _, _ in fetched]

    def _in_order(self, m: _Matches, pieces: list[str]) -> _Matches:
        """Of sections holding every token of a names phrase, those whose names hold them in that order."""
        if not len(m.keys):
            return m
        rows = self.db.execute(
            "SELECT s.page_id, s.ord, s.names FROM sections s "
            "JOIN unnest(%s::bigint[], %s::int[]) AS w(page_id, ord) USING (page_id, ord)",
            ([int(k) // _ORD_SPAN for k in m.keys], [int(k) % _ORD_SPAN for k in m.keys]),
        ).fetchall()
        k = len(pieces)
        held = set()
        for page_id, ord_, names in rows:
            tokens = text.tokens(" ".join(tokenize(names)))  # the names column as fts_rows makes it
            if any(tokens[i : i + k] == pieces for i in range(len(tokens) - k + 1)):
                held.add(page_id * _ORD_SPAN + ord_)
        keep = np.fromiter((int(key) in held for key in m.keys), bool, len(m.keys))
        return _Matches(m.keys[keep], m.f[keep], m.length[keep], m.in_scope[keep])


def section_place(key: int) -> tuple[int, int]:
    """(page id, ord) of a section's scoring key."""
    return key // _ORD_SPAN, key % _ORD_SPAN


@dataclass
class _Rows:
    """The live pages' entries of the rows read (postings.Decoded), with each page's length and scope."""

    row: np.ndarray
    page_ids: np.ndarray
    page_len: np.ndarray
    in_scope: np.ndarray
    page: np.ndarray
    section_seg: np.ndarray
    section: np.ndarray
