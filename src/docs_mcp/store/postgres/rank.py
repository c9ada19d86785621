"""FTS5's BM25 in PostgreSQL SQL, from the term rows (and, for phrases, the rows a GIN index matches).

A query of single tokens (most) is read from the term rows alone: one index-only scan of their primary key,
which includes each row's length and per-column counts. A phrase (a names phrase, a word with an apostrophe)
matches through the tsvector (GIN, `@@` with an OR tsquery of the terms; a phrase with `<->`).
Per matched row and query term, the frequency f is the sum of the column weights times the term's count in
each column, read from the term rows (`section_terms`, `page_terms`: one per row and term, looked up by
term; unnesting each matched tsvector instead cost 0.1 ms a section and 1 ms a page, 300 ms a query); the
row's length is its token count; N and the average length are FTS5's (all full-text rows, all their tokens:
kept in `fts_totals` by every write) and a term's n the rows holding it. score = Σ idf · f(k1+1) / (f +
k1(1 − b + b·len/avglen)), idf = ln((N − n + ½) / (n + ½)) floored at 1e-6, as fts5_aux.c computes it. A
names phrase counts its rarest token's frequency (FTS5 counts the phrase: the same unless a token also
occurs alone in the names).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from docs_mcp.settings import PAGE_WEIGHTS, SECTION_WEIGHTS
from docs_mcp.store.interface import Scope
from docs_mcp.store.postgres import text

if TYPE_CHECKING:
    import psycopg

#: Above every character: `prefix <= key < prefix + _TOP` (collation C) holds exactly the keys under prefix.
_TOP = "\U0010ffff"
#: FTS5's bm25 parameters.
K1, B = 1.2, 0.75
_BM25 = """
WITH q AS (SELECT * FROM unnest(%(ti)s::int[], %(piece)s::text[], %(idf)s::float8[], %(n)s::int[])
           AS q(ti, piece, idf, n)),
c AS MATERIALIZED ({candidates}),
pf AS (
    SELECT c.id, q.ti, q.idf, q.n,
           %(wa)s::float8 * t.a + %(wb)s::float8 * t.b + %(wc)s::float8 * t.c + %(wd)s::float8 * t.d AS f
    FROM q JOIN {terms} t ON t.term = q.piece JOIN c ON c.id = t.id),
tf AS (
    SELECT id, ti, min(idf) AS idf, min(f) AS f FROM pf WHERE f > 0
    GROUP BY id, ti HAVING count(*) = min(n))
SELECT {out}, sum(tf.idf * tf.f * {k1p} / (tf.f + {k1} * ({b0} + {b} * c.len / %(avgdl)s::float8))) AS score
FROM c JOIN tf ON tf.id = c.id GROUP BY {out} ORDER BY score DESC, c.id LIMIT %(limit)s
"""
#: The same sum when every term is one token (no phrase): read from the term rows alone, an index-only scan of
#: their primary key (it includes the row's length and counts), grouped per row. 2–3× faster than the above.
_BM25_TOKENS = """
WITH q AS (SELECT * FROM unnest(%(piece)s::text[], %(idf)s::float8[]) AS q(piece, idf)),
pf AS (
    SELECT t.*, q.idf,
           %(wa)s::float8 * t.a + %(wb)s::float8 * t.b + %(wc)s::float8 * t.c + %(wd)s::float8 * t.d AS f
    FROM q JOIN {terms} t ON t.term = q.piece)
SELECT {out}, sum(c.idf * c.f * {k1p} / (c.f + {k1} * ({b0} + {b} * c.len / %(avgdl)s::float8))) AS score
FROM pf c WHERE c.f > 0 AND c.{page} IN (SELECT p.id FROM pages p WHERE {where})
GROUP BY {out} ORDER BY score DESC, c.id LIMIT %(limit)s
"""


def scope_sql(scope: Scope, column: str = "p.key") -> tuple[str, dict[str, str]]:
    """A WHERE condition on `column` and its named parameters (key ranges, so the key index serves it)."""
    if not scope.prefixes:
        return "false", {}
    parts, args = [], {}
    for i, prefix in enumerate(scope.prefixes):
        parts.append(f"({column} >= %(lo{i})s AND {column} < %(hi{i})s)")
        args[f"lo{i}"], args[f"hi{i}"] = prefix, prefix + _TOP
    return "(" + " OR ".join(parts) + ")", args


class Ranking:
    """BM25 queries of one snapshot's connection."""

    def __init__(self, db: psycopg.Connection):
        self.db = db

    def _hits(self, kind: str, pieces: list[list[str]], tsq: str, names_only: bool) -> list[int]:
        """FTS5's n per term: the rows holding it (a token: its term rows; a names phrase: its GIN matches)."""
        table, terms = ("sections", "section_terms") if kind == "sections" else ("page_fts", "page_terms")
        if names_only or any(len(p) > 1 for p in pieces):
            label = ":D" if names_only else ""
            queries = [" <-> ".join(text.quote(p) + label for p in ps) for ps in pieces]
            counts = ", ".join(
                f"count(*) FILTER (WHERE tsv @@ %(q{i})s::tsquery)" for i in range(len(queries))
            )
            return list(
                self.db.execute(
                    f"SELECT {counts} FROM {table} WHERE tsv @@ %(any)s::tsquery",
                    {"any": tsq, **{f"q{i}": one for i, one in enumerate(queries)}},
                ).fetchone()
            )
        sql = f"SELECT term, count(*) FROM {terms} WHERE term = ANY(%s) GROUP BY term"
        found = dict(self.db.execute(sql, ([p[0] for p in pieces],)).fetchall())
        return [found.get(p[0], 0) for p in pieces]

    def _query_rows(self, kind: str, terms: Sequence[str], names_only: bool) -> dict | None:
        """The query's parameters: its pieces with their term's idf, the tsquery, the average length."""
        tsq, pieces = text.query(terms, names_only)
        if not pieces:
            return None
        sql = "SELECT rows, tokens FROM fts_totals WHERE kind=%s"
        rows, tokens = self.db.execute(sql, (kind,)).fetchone()
        q: dict[str, list] = {"ti": [], "piece": [], "idf": [], "n": []}
        for i, (term_pieces, hits) in enumerate(
            zip(pieces, self._hits(kind, pieces, tsq, names_only), strict=True)
        ):
            idf = math.log((rows - hits + 0.5) / (hits + 0.5))
            for piece in term_pieces:
                q["ti"].append(i)
                q["piece"].append(piece)
                q["n"].append(len(term_pieces))
                q["idf"].append(idf if idf > 0 else 1e-6)
        weights = SECTION_WEIGHTS if kind == "sections" else PAGE_WEIGHTS
        if names_only:  # a column filter: only the names column's occurrences count
            weights = (0, 0, 0, weights[3])
        return {
            **q,
            **dict(zip(("wa", "wb", "wc", "wd"), weights, strict=True)),
            "tsq": tsq,
            "lexemes": sorted(set(q["piece"])),
            # Phrases are matched by the tsvector (positions); single tokens by their term rows alone.
            "phrase": names_only or any(n > 1 for n in q["n"]),
            "avgdl": tokens / rows if rows else 1.0,
        }

    def scored(
        self, kind: str, terms: Sequence[str], where: str, args: dict, limit: int, **kw
    ) -> list[tuple]:
        """(`out` columns…, score) of the best rows matching any term under `where`, best first."""
        params = self._query_rows(kind, terms, kw.get("names_only", False))
        if params is None:
            return []
        alias, terms_table = ("s", "section_terms") if kind == "sections" else ("f", "page_terms")
        bm25 = {"terms": terms_table, "out": kw["out"], "k1p": K1 + 1, "k1": K1, "b0": 1 - B, "b": B}
        if not params.pop("phrase"):
            page = "page_id" if kind == "sections" else "id"
            sql = _BM25_TOKENS.format(where=where, page=page, **bm25)
            return self.db.execute(sql, {**params, **args, "limit": limit}).fetchall()
        match = f"{alias}.id IN (SELECT id FROM {terms_table} WHERE term = ANY(%(lexemes)s::text[]))"
        match += f" AND {alias}.tsv @@ %(tsq)s::tsquery"
        if kind == "sections":
            candidates = (
                "SELECT s.id, s.page_id, s.names, s.len FROM sections s JOIN pages p ON p.id=s.page_id"
            )
        else:
            candidates = "SELECT f.id, f.len FROM page_fts f JOIN pages p ON p.id=f.id"
        sql = _BM25.format(candidates=f"{candidates} WHERE {match} AND {where}", **bm25)
        return self.db.execute(sql, {**params, **args, "limit": limit}).fetchall()
