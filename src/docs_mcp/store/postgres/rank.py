"""FTS5's BM25 in PostgreSQL SQL, over the rows a GIN index matches.

Per matched row and query term, the frequency f is the sum of the term's column weights over its positions in
the row's tsvector (`unnest`: lexeme, positions, weights); the row's length is its token count; N and the
average length are FTS5's (all full-text rows, all their tokens: kept in `fts_totals` by every write) and a
term's n the rows holding it. score = Σ idf · f(k1+1) / (f + k1(1 − b + b·len/avglen)), idf = ln((N − n + ½) /
(n + ½)) floored at 1e-6, as fts5_aux.c computes it. A phrase (names) counts its rarest token's frequency.
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
tf AS (
    SELECT c.id, q.ti, min(q.idf) AS idf, min(f.f) AS f FROM c CROSS JOIN q
    CROSS JOIN LATERAL (
        SELECT sum(CASE w WHEN 'A' THEN %(wa)s::float8 WHEN 'B' THEN %(wb)s::float8
                          WHEN 'C' THEN %(wc)s::float8 ELSE %(wd)s::float8 END) AS f
        FROM unnest(c.tsv) u CROSS JOIN unnest(u.weights) w
        WHERE u.lexeme = q.piece OR starts_with(u.lexeme, q.piece || chr(1))) f
    WHERE f.f > 0 GROUP BY c.id, q.ti HAVING count(*) = min(q.n))
SELECT {out}, sum(tf.idf * tf.f * {k1p} / (tf.f + {k1} * ({b0} + {b} * c.len / %(avgdl)s::float8))) AS score
FROM c JOIN tf ON tf.id = c.id GROUP BY {out} ORDER BY score DESC, c.id LIMIT %(limit)s
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

    def _query_rows(self, table: str, kind: str, terms: Sequence[str], names_only: bool) -> dict | None:
        """The query's parameters: its pieces with their term's idf, the tsquery, the average length."""
        tsq, pieces = text.query(terms, names_only)
        if not pieces:
            return None
        rows, tokens = self.db.execute(
            "SELECT rows, tokens FROM fts_totals WHERE kind=%s", (kind,)
        ).fetchone()
        label = ":D" if names_only else ""
        q: dict[str, list] = {"ti": [], "piece": [], "idf": [], "n": []}
        for i, term_pieces in enumerate(pieces):
            one = " <-> ".join(text.quote(p) + label for p in term_pieces)
            sql = f"SELECT count(*) FROM {table} WHERE tsv @@ %s::tsquery"
            hits = self.db.execute(sql, (one,)).fetchone()[0]
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
            "avgdl": tokens / rows if rows else 1.0,
        }

    def scored(
        self, kind: str, terms: Sequence[str], where: str, args: dict, limit: int, **kw
    ) -> list[tuple]:
        """(`out` columns…, score) of the best rows matching any term under `where`, best first."""
        table = "sections" if kind == "sections" else "page_fts"
        params = self._query_rows(table, kind, terms, kw.get("names_only", False))
        if params is None:
            return []
        if kind == "sections":
            candidates = (
                "SELECT s.id, s.page_id, s.names, s.tsv, s.len FROM sections s JOIN pages p ON p.id=s.page_id "
                f"WHERE s.tsv @@ %(tsq)s::tsquery AND {where}"
            )
        else:
            candidates = (
                "SELECT f.id, f.tsv, f.len FROM page_fts f JOIN pages p ON p.id=f.id "
                f"WHERE f.tsv @@ %(tsq)s::tsquery AND {where}"
            )
        sql = _BM25.format(candidates=candidates, out=kw["out"], k1p=K1 + 1, k1=K1, b0=1 - B, b=B)
        return self.db.execute(sql, {**params, **args, "limit": limit}).fetchall()
