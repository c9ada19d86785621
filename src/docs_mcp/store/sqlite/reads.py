"""Every read of the SQLite index, on one connection inside one read transaction (a consistent snapshot)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Sequence

from docs_mcp.convert.render import render_section
from docs_mcp.model.document import Document
from docs_mcp.settings import PAGE_WEIGHTS, SECTION_WEIGHTS
from docs_mcp.store.interface import COPIES_CAP, PageRow, PageState, Scope, SectionRow
from docs_mcp.store.pagerows import TOTAL, WHOLE_DIGESTS, like_pattern
from docs_mcp.store.pagestream import unpack_links, unpack_page
from docs_mcp.store.sqlite.audit import AuditReads
from docs_mcp.store.sqlite.copies import digested_below, shared_digests
from docs_mcp.store.sqlite.inbound import inbound_terms, links_from, marks
from docs_mcp.store.sqlite.keywords import keyword_matches, scored_entries
from docs_mcp.store.sqlite.scoped import ScopeStats, scope_stats
from docs_mcp.store.sqlite.scoping import match_expression, scope_sql
from docs_mcp.store.sqlite.texts import SECTION_COLUMNS, section_rows

_SECTION_BM25 = "-bm25(sections_fts, {}, {}, {}, {})".format(*SECTION_WEIGHTS)
_PAGE_BM25 = "-bm25(pages_fts, {}, {}, {}, {})".format(*PAGE_WEIGHTS)
#: The names column alone (a names phrase matches there only).
_NAMES = range(3, 4)


class SQLiteReads(AuditReads):
    """The `Reads` of the store on one snapshot; made by `SiteIndex.reading()`."""

    def __init__(self, db: sqlite3.Connection, fresh_seconds: float, scope_memo: dict):
        self.db = db
        self.fresh_seconds = fresh_seconds
        #: (connection, data_version, scope) → whether the scope holds every page of the index.
        self._scope_memo = scope_memo

    # --- pages and builds ------------------------------------------------------------------------
    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def page_count(self, scope: Scope | None = None) -> int:
        """Pages in the index, or in a scope (`Scope.of([source])`: one source's pages)."""
        where, args = scope_sql(scope, "key") if scope is not None else ("1", [])
        return self.db.execute(f"SELECT count(*) FROM pages WHERE {where}", args).fetchone()[0]

    def section_count(self) -> int:
        return self.db.execute("SELECT count(*) FROM sections").fetchone()[0]

    def newest(self, scope: Scope) -> float:
        """When the most recently fetched (or revalidated) page of a scope was; 0 for none."""
        where, args = scope_sql(scope, "key")
        return self.db.execute(f"SELECT max(fetched_at) FROM pages WHERE {where}", args).fetchone()[0] or 0.0

    def older_than(self, scope: Scope, when: float) -> int:
        """How many pages of a scope were last fetched (or revalidated) before `when`: the stale ones."""
        where, args = scope_sql(scope, "key")
        sql = f"SELECT count(*) FROM pages WHERE ({where}) AND fetched_at < ?"
        return self.db.execute(sql, [*args, when]).fetchone()[0]

    def pages(self, scope: Scope) -> list[PageState]:
        where, args = scope_sql(scope, "key")
        rows = self.db.execute(f"SELECT key, fetched_at, etag, last_modified FROM pages WHERE {where}", args)
        return [PageState(k, f, e or "", m or "") for k, f, e, m in rows.fetchall()]

    def links(self, key: str) -> list[str]:
        """Links seen on a page when it was last fetched (a 304 does not resend them)."""
        row = self.db.execute(
            "SELECT d.doc FROM pages p JOIN page_data d ON d.id=p.id WHERE p.key=?", (key,)
        ).fetchone()
        return unpack_links(row[0]) if row else []

    def load_document(self, key: str) -> Document | None:
        """The stored converted page, while fresh (no refetch after a restart)."""
        row = self.db.execute(
            "SELECT d.doc, p.fetched_at, p.etag, p.last_modified FROM pages p JOIN page_data d ON d.id=p.id "
            "WHERE p.key=?",
            (key,),
        ).fetchone()
        if not row or row[0] is None or time.time() - row[1] > self.fresh_seconds:
            return None
        _, texts, _, doc = unpack_page(row[0])
        return Document.from_json(doc, render_section, texts, (row[1], row[2] or "", row[3] or ""))

    def headings(self, key: str) -> list[tuple[int, str, str]]:
        """(level, anchor, title) of a page's headings, in page order."""
        rows = self.db.execute(
            "SELECT s.level, s.anchor, s.title FROM sections s JOIN pages p ON p.id=s.page_id "
            "WHERE p.key=? AND s.level>0 ORDER BY s.ord",
            (key,),
        ).fetchall()
        return [(lv, a, t) for lv, a, t in rows]

    def without_vectors(self, model: str, scope: Scope, limit: int, after: int = 0) -> list[tuple[int, str]]:
        """(id, key) of the listed pages of a scope with no vectors of `model` (indexed without it, or with
        another model), by id from `after` on."""
        where, args = scope_sql(scope)
        return self.db.execute(
            f"SELECT p.id, p.key FROM pages p LEFT JOIN page_vectors v ON v.id=p.id AND v.model=? "
            f"WHERE p.listed=1 AND v.id IS NULL AND p.id>? AND {where} ORDER BY p.id LIMIT ?",
            (model, after, *args, limit),
        ).fetchall()

    # --- ranking -----------------------------------------------------------------------------------
    def doc_freq(self, terms: Sequence[str], scope: Scope) -> tuple[dict[str, int], int]:
        """The scope's listed sections holding each term (terms in none left out), and its number of listed
        sections: the vocabulary's counts where the scope is the whole index, else the scope's own."""
        stats = self._stats(scope)
        if not stats.whole:
            return stats.doc_freq(terms)
        sql = f"SELECT term, df FROM vocab WHERE term IN ({marks([TOTAL, *terms])})"
        rows = dict(self.db.execute(sql, [TOTAL, *terms]).fetchall())
        total = rows.pop(TOTAL, 0) or 1
        return {t: n for t, n in rows.items() if n > 0}, total

    def section_matches(self, terms: Sequence[str], scope: Scope, limit: int) -> list[tuple[int, int, float]]:
        """(page id, section id, BM25) of the best sections of the scope holding any of the terms, best first."""
        stats = self._stats(scope)
        if not stats.whole:  # the scope's own statistics (scoped.py), not the whole table's
            top = stats.scored("sections_fts", terms, SECTION_WEIGHTS)[:limit]
        else:  # rank inside FTS alone, then look up only the rows kept: joining every match costs more
            top = self.db.execute(
                f"SELECT rowid, {_SECTION_BM25} AS score FROM sections_fts WHERE sections_fts MATCH ? "
                "ORDER BY score DESC LIMIT ?",
                (match_expression(terms), limit),
            ).fetchall()
        sql = f"SELECT id, page_id FROM sections WHERE id IN ({marks(top)})"
        owner = dict(self.db.execute(sql, [r for r, _ in top]))
        return [(owner[r], r, score) for r, score in top if r in owner]

    def page_matches(self, terms: Sequence[str], scope: Scope, limit: int) -> list[tuple[int, float]]:
        """(page id, BM25) of the best pages of the scope holding any of the terms, best first."""
        stats = self._stats(scope)
        if not stats.whole:
            return stats.scored("pages_fts", terms, PAGE_WEIGHTS)[:limit]
        # A page's FTS rowid is its id: no join needed.
        sql = f"SELECT rowid, {_PAGE_BM25} AS score FROM pages_fts WHERE pages_fts MATCH ? ORDER BY score DESC LIMIT ?"
        return self.db.execute(sql, (match_expression(terms), limit)).fetchall()

    def name_matches(self, phrases: Sequence[str], scope: Scope, limit: int) -> list[tuple[int, int, str]]:
        """(page id, section id, defined names) of the sections of the scope whose names hold one of the phrases
        (space-separated tokens), best first."""
        stats = self._stats(scope)
        if not stats.whole:
            top = [r for r, _ in stats.scored("sections_fts", phrases, SECTION_WEIGHTS, _NAMES)[:limit]]
            sql = f"SELECT id, page_id, names FROM sections WHERE id IN ({marks(top)})"
            found = {sid: (pid, sid, names) for sid, pid, names in self.db.execute(sql, top)}
            return [found[r] for r in top if r in found]
        where, args = scope_sql(scope)
        return self.db.execute(
            "SELECT s.page_id, s.id, s.names FROM sections_fts f JOIN sections s ON s.id=f.rowid "
            f"JOIN pages p ON p.id=s.page_id WHERE sections_fts MATCH ? AND {where} ORDER BY f.rank LIMIT ?",
            (f"names : ({match_expression(phrases)})", *args, limit),
        ).fetchall()

    def keyword_matches(
        self, terms: Sequence[str], scope: Scope, limit: int
    ) -> list[tuple[int, str, str, float]]:
        """(target page id, anchor, term tokens, BM25) of the keyword-index entries holding any of the terms
        whose target is a listed page of the scope, best first."""
        where, args = scope_sql(scope)
        stats = self._stats(scope)
        if not stats.whole:  # the scope's own entries' statistics (scoped.py)
            return scored_entries(
                self.db, stats.scored("keywords_fts", terms, (1.0,), range(1)), where, args, limit
            )
        return keyword_matches(self.db, match_expression(terms), where, args, limit)

    def inbound_terms(self, page_ids: Sequence[int], terms: Sequence[str]) -> list[tuple[int, str]]:
        """(page id, term) of these terms that other pages' links to these pages say."""
        return inbound_terms(self.db, page_ids, terms)

    def links_from(self, page_ids: Sequence[int]) -> dict[int, dict[str, frozenset[str]]]:
        """Per page: the pages its links point at (keys), each with the terms those links say."""
        return links_from(self.db, page_ids)

    def best_section(self, page_id: int, terms: Sequence[str], scope: Scope) -> int | None:
        """A page's best section for the terms (for a page found by page-level BM25 only)."""
        lo, hi = self.db.execute(
            "SELECT min(id), max(id) FROM sections WHERE page_id=?", (page_id,)
        ).fetchone()
        if lo is None:
            return None
        stats = self._stats(scope)
        if not stats.whole:
            top = stats.scored("sections_fts", terms, SECTION_WEIGHTS, within=(lo, hi))
            return top[0][0] if top else None
        # A page's sections are written together, so their ids are one range: FTS5 seeks to it instead of
        # ranking every match in the index (37 → 1.2 ms at 50,000 sections). No join: with one, SQLite
        # applies the range after the full-text scan.
        row = self.db.execute(
            "SELECT rowid FROM sections_fts WHERE sections_fts MATCH ? AND rowid BETWEEN ? AND ? "
            "ORDER BY rank LIMIT 1",
            (match_expression(terms), lo, hi),
        ).fetchone()
        return row[0] if row else None

    def pages_holding(self, term: str, page_ids: Sequence[int]) -> list[int]:
        """Those of these pages whose full text holds the term (a page's FTS rowid is its id)."""
        ids = list(page_ids)
        if not ids:
            return []
        # `+rowid`: the list is checked against the term's pages inside SQLite. A plain `rowid IN (…)` makes
        # FTS5 read each listed row (15-25 ms a term on the Python docs); all the term's pages brought into
        # Python and filtered there cost 0.4 ms a term on JDK 17's Javadoc, this 0.2.
        sql = f"SELECT rowid FROM pages_fts WHERE pages_fts MATCH ? AND +rowid IN ({marks(ids)})"
        return [r for (r,) in self.db.execute(sql, (match_expression([term]), *ids))]

    def page_rows(self, page_ids: Iterable[int]) -> list[PageRow]:
        ids = list(page_ids)
        sql = f"SELECT id, key, title, fetched_at, hash FROM pages WHERE id IN ({marks(ids)})"
        return [PageRow(i, k, t, f, h or "") for i, k, t, f, h in self.db.execute(sql, ids)]

    def titled_pages(self, fragment: str, scope: Scope, limit: int) -> list[tuple[int, str]]:
        where, args = scope_sql(scope)
        sql = f"SELECT p.id, p.title FROM pages p WHERE p.listed=1 AND p.title LIKE ? ESCAPE '\\' AND {where} LIMIT ?"
        return self.db.execute(sql, (like_pattern(fragment), *args, limit)).fetchall()

    def page_titles(self, keys: Sequence[str]) -> list[tuple[str, str]]:
        sql = f"SELECT key, title FROM pages WHERE key IN ({marks(keys)})"
        return self.db.execute(sql, list(keys)).fetchall()

    def section_rows(self, section_ids: Iterable[int]) -> list[SectionRow]:
        ids = list(section_ids)
        sql = f"SELECT {SECTION_COLUMNS} FROM sections WHERE id IN ({marks(ids)})"
        return section_rows(self.db, self.db.execute(sql, ids).fetchall())

    def section_ids_at(self, places: Sequence[tuple[int, int]]) -> dict[tuple[int, int], int]:
        if not places:
            return {}
        # By page id (its index), then the places: a row-value IN list is a scan of every section.
        wanted = set(places)
        pages = sorted({p for p, _ in places})
        sql = f"SELECT page_id, ord, id FROM sections WHERE page_id IN ({marks(pages)})"
        return {(p, o): i for p, o, i in self.db.execute(sql, pages) if (p, o) in wanted}

    def following_sections(self, section_ids: Iterable[int], count: int) -> list[SectionRow]:
        ids = list(section_ids)
        sql = (
            "SELECT t.id, t.page_id, t.anchor, t.title, t.ord, t.names FROM sections s JOIN sections t "
            f"ON t.page_id = s.page_id AND t.ord > s.ord AND t.ord <= s.ord + ? WHERE s.id IN ({marks(ids)}) "
            "ORDER BY t.page_id, t.ord"
        )
        return section_rows(self.db, self.db.execute(sql, [count, *ids]).fetchall())

    def page_shapes(self, page_ids: Sequence[int]) -> dict[int, tuple[int, int, int]]:
        """Per listed page: its number of sections, of sections with a content digest, and of their words."""
        sql = f"SELECT id, sections, digests, words FROM page_shapes WHERE id IN ({marks(page_ids)})"
        return {pid: (n, d, w) for pid, n, d, w in self.db.execute(sql, list(page_ids))}

    def section_copies(
        self, section_ids: Sequence[int], scope: Scope, near: bool = True
    ) -> list[tuple[int, int, int]]:
        """(section id, other page id, its section id): listed pages of the scope holding the same content."""
        where, args = scope_sql(scope)
        held, _ = scope_sql(scope, "q.key")
        sql = (
            f"SELECT DISTINCT a.id, b.page_id, b.id FROM section_digests a "
            f"JOIN section_digests b ON b.digest=a.digest AND b.page_id!=a.page_id JOIN pages p ON p.id=b.page_id "
            f"WHERE a.id IN ({marks(section_ids)}){'' if near else WHOLE_DIGESTS} AND p.listed=1 AND {where} AND "
            # Counted among the scope's pages (another source's footer is not this one's), no further than the
            # cap: a footer's digest is on thousands of pages.
            f"(SELECT count(*) FROM (SELECT 1 FROM section_digests c JOIN pages q ON q.id=c.page_id "
            f"WHERE c.digest=a.digest AND {held} LIMIT {COPIES_CAP + 1})) <= {COPIES_CAP}"
        )
        return self.db.execute(sql, [*section_ids, *args, *args]).fetchall()

    def digested_below(self, section_ids: Sequence[int]) -> dict[int, int]:
        return digested_below(self.db, section_ids)

    def shared_digests(
        self, page_id: int, scope: Scope, other: int | None = None, most: int | None = None, near: bool = True
    ) -> int:
        return shared_digests(self.db, page_id, scope_sql(scope), other, most, near)

    def vectors(self, model: str, page_ids: Sequence[int]) -> list[tuple[int, bytes]]:
        """Stored section vectors of `model` for these pages (those that have some)."""
        sql = f"SELECT id, vecs FROM page_vectors WHERE model=? AND id IN ({marks(page_ids)})"
        return self.db.execute(sql, (model, *page_ids)).fetchall()

    def vector_pages(self, model: str, scope: Scope) -> list[int]:
        """Ids of the listed pages of the scope with stored vectors of `model`, ascending."""
        where, args = scope_sql(scope)
        rows = self.db.execute(
            f"SELECT v.id FROM page_vectors v JOIN pages p ON p.id=v.id "
            f"WHERE v.model=? AND p.listed=1 AND {where} ORDER BY v.id",
            (model, *args),
        )
        return [pid for (pid,) in rows]

    def _stats(self, scope: Scope) -> ScopeStats:
        """The scope's ranking statistics in this snapshot (scoped.scope_stats)."""
        return scope_stats(self.db, scope, self._scope_memo)
