"""The PostgreSQL side of a site's keyword indexes (store/sqlite/keywords.py is SQLite's): each entry of a generated
index page (term → target page and anchor), stored under the key of the index page that lists it, found by its
term's words through a GIN index and ranked by FTS5's BM25 over the one term column, as SQLite ranks it.

An index page rewritten keeps the entries it still lists (only the ones it lost or gained are written): each
entry written again was a dead row and a GIN entry, and one rewrite of a 20,000-entry index page left as much
dead space as the table's growth in a whole refresh (the space of rows deleted and inserted in one transaction
cannot be reused by that transaction)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from docs_mcp.store.fts5 import idf, term_score
from docs_mcp.store.postgres import text

if TYPE_CHECKING:
    import psycopg

#: Of the entries: those the scope's own index pages list (`listing`: the scope's condition on `q.key`).
_LISTED = "k.page IN (SELECT hashtextextended(q.key, 0) FROM pages q WHERE {listing})"
#: The migration that adds the table (store/postgres/schema.py runs it in order).
KEYWORD_MIGRATION = """
    CREATE TABLE keywords(
        id bigserial PRIMARY KEY, page_id bigint NOT NULL, target text COLLATE "C" NOT NULL,
        anchor text NOT NULL, term text NOT NULL, len integer NOT NULL, tsv tsvector NOT NULL);
    CREATE INDEX keywords_page ON keywords(page_id);
    CREATE INDEX keywords_tsv ON keywords USING gin(tsv);
    """
#: Migration 6: entries under their index page's key, not its id (a rewritten page has a new id); the key as
#: its 64-bit hash (`page`: 8 bytes an entry where the key's text took ~50, 0.5 MB on Python + PostgreSQL).
KEYWORD_PAGE_KEY = """
    ALTER TABLE keywords ADD COLUMN page bigint;
    UPDATE keywords k SET page = hashtextextended(p.key, 0) FROM pages p WHERE p.id = k.page_id;
    DELETE FROM keywords WHERE page IS NULL;
    ALTER TABLE keywords ALTER COLUMN page SET NOT NULL, DROP COLUMN page_id;
    CREATE INDEX keywords_page ON keywords(page);
    """
#: An entry: (term as indexed tokens, target key, anchor).
Entry = tuple[str, str, str]


def put_keywords(db: psycopg.Connection, page: str, rows: Sequence[Entry]) -> None:
    """An index page's entries, replacing the ones stored for its key: only the difference is written."""
    stored: dict[Entry, list[int]] = {}
    for kid, term, target, anchor in db.execute(
        "SELECT id, term, target, anchor FROM keywords WHERE page=hashtextextended(%s, 0)", (page,)
    ):
        stored.setdefault((term, target, anchor), []).append(kid)
    wanted = Counter(rows)
    gone = [kid for entry, ids in stored.items() for kid in ids[wanted.get(entry, 0) :]]
    if gone:
        db.execute("DELETE FROM keywords WHERE id = ANY(%s)", (gone,))
    values = []
    for entry, n in wanted.items():
        term, target, anchor = entry
        tsv, length = text.tsvector((term, "", "", ""))
        values += [(page, target, anchor, term, length, tsv)] * max(0, n - len(stored.get(entry, ())))
    if values:
        with db.cursor() as cur:
            cur.executemany(
                "INSERT INTO keywords(page, target, anchor, term, len, tsv) "
                "VALUES (hashtextextended(%s, 0),%s,%s,%s,%s,%s::tsvector)",
                values,
            )


def delete_keywords(db: psycopg.Connection, page: str) -> None:
    """The entries an index page listed."""
    db.execute("DELETE FROM keywords WHERE page=hashtextextended(%s, 0)", (page,))


def _count(tokens: list[str], piece: list[str]) -> int:
    """Occurrences of a term (a phrase when it has several tokens) in a row's tokens."""
    k = len(piece)
    return sum(1 for i in range(len(tokens) - k + 1) if tokens[i : i + k] == piece)


def keyword_totals(db: psycopg.Connection, listing: str, args: dict) -> tuple[int, int]:
    """How many entries the scope's own index pages list (`listing`: a condition on `q.key`), and their tokens."""
    sql = f"SELECT count(*), coalesce(sum(len), 0)::bigint FROM keywords k WHERE {_LISTED.format(listing=listing)}"
    n_rows, tokens = db.execute(sql, args).fetchone()
    return int(n_rows), int(tokens)


def keyword_matches(
    db: psycopg.Connection,
    terms: Sequence[str],
    scope: tuple[str, dict],
    listing: str,
    limit: int,
    totals: tuple[int, int],
) -> list[tuple[int, str, str, float]]:
    """(target page id, anchor, term tokens, BM25) of the entries holding any of the terms whose target is a
    listed page of the scope (`scope`: its condition on `p.key` and the parameters), best first. N, n and the
    average length count the entries the scope's own index pages list (`listing`: the same condition on
    `q.key`), as FTS5 counts a table holding the scope alone: `totals`, N and their tokens (`keyword_totals`)."""
    tsq, pieces = text.query(terms)
    if not pieces:
        return []
    scope_where, scope_args = scope
    mine = _LISTED.format(listing=listing)
    n_rows, tokens = totals
    rows = db.execute(
        f"SELECT k.term, k.len, p.id, k.anchor, coalesce(p.listed AND {scope_where}, false) FROM keywords k "
        f"LEFT JOIN pages p ON p.key=k.target WHERE k.tsv @@ %(q)s::tsquery AND {mine}",
        {**scope_args, "q": tsq},
    ).fetchall()
    counted = [(row, [_count(text.tokens(row[0]), p) for p in pieces]) for row in rows]
    weights = [idf(n_rows, sum(1 for _, f in counted if f[j])) for j in range(len(pieces))]
    avg = tokens / n_rows if n_rows else 1.0
    out = []
    for (term, length, page_id, anchor, wanted), f in counted:
        if wanted:
            score = 0.0
            for w, x in zip(weights, f, strict=True):
                if x:
                    score += term_score(w, float(x), length, avg)
            out.append((page_id, anchor, term, score))
    out.sort(key=lambda r: -r[3])
    return out[:limit]
