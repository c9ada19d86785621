"""Every read of the PostgreSQL index, on one connection inside one REPEATABLE READ transaction (a snapshot)."""

from __future__ import annotations

import time
import zlib
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from docs_mcp.convert.render import render_section
from docs_mcp.model.document import Document
from docs_mcp.store.interface import COPIES_CAP, PageRow, Scope, SectionRow
from docs_mcp.store.pagerows import DIGESTED_BELOW, TOTAL, WHOLE_DIGESTS, like_pattern
from docs_mcp.store.postgres import inbound, keywords, text
from docs_mcp.store.postgres.audit import AuditReads
from docs_mcp.store.postgres.postings import decode
from docs_mcp.store.postgres.rank import Ranking, scope_sql, section_place
from docs_mcp.store.postgres.states import StateReads

if TYPE_CHECKING:
    import psycopg


class PostgresReads(StateReads, AuditReads):
    """The `Reads` of the store on one snapshot; made by `PostgresStore.reading()`."""

    def __init__(self, conn: psycopg.Connection, fresh_seconds: float, totals_memo: dict | None = None):
        super().__init__(conn)
        self.fresh_seconds = fresh_seconds
        self.rank = Ranking(conn, {} if totals_memo is None else totals_memo, self.meta)

    def links(self, key: str) -> list[str]:
        row = self._one("SELECT d.links FROM pages p JOIN page_data d ON d.id=p.id WHERE p.key=%s", (key,))
        return row[0].split("\n") if row and row[0] else []

    def load_document(self, key: str) -> Document | None:
        row = self._one(
            "SELECT d.doc, p.fetched_at, p.etag, p.last_modified FROM pages p JOIN page_data d ON d.id=p.id "
            "WHERE p.key=%s",
            (key,),
        )
        if not row or row[0] is None or time.time() - row[1] > self.fresh_seconds:
            return None
        # The stored page leaves its sections' texts to the sections rows (each text once, as in SQLite).
        texts = self._all(
            "SELECT s.text, s.ztext FROM sections s JOIN pages p ON p.id=s.page_id WHERE p.key=%s ORDER BY s.ord",
            (key,),
        )
        texts = [text.stored_text(t, z) for t, z in texts]
        return Document.from_json(
            zlib.decompress(row[0]), render_section, texts, (row[1], row[2] or "", row[3] or "")
        )

    def headings(self, key: str) -> list[tuple[int, str, str]]:
        rows = self._all(
            "SELECT s.level, s.anchor, s.title FROM sections s JOIN pages p ON p.id=s.page_id "
            "WHERE p.key=%s AND s.level>0 ORDER BY s.ord",
            (key,),
        )
        return [(lv, a, t) for lv, a, t in rows]

    def without_vectors(self, model: str, scope: Scope, limit: int, after: int = 0) -> list[tuple[int, str]]:
        where, args = scope_sql(scope)
        rows = self._all(
            "SELECT p.id, p.key FROM pages p LEFT JOIN page_vectors v ON v.id=p.id AND v.model=%(model)s "
            f"WHERE p.listed AND v.id IS NULL AND p.id>%(after)s AND {where} ORDER BY p.id LIMIT %(limit)s",
            {"model": model, "after": after, **args, "limit": limit},
        )
        return [(pid, key) for pid, key in rows]

    # --- ranking: FTS5's BM25 (rank.py) ------------------------------------------------------------
    def doc_freq(self, terms: Sequence[str], scope: Scope) -> tuple[dict[str, int], int]:
        """The scope's listed sections holding each term (terms in none left out), and its number of listed
        sections: the vocabulary's counts where the scope is the whole index, else counted from its rows."""
        where, args = scope_sql(scope)
        if not self.rank.whole(where, args):
            counts = self.rank.section_counts(terms, where, args)
            return {t: n for t, n in counts.items() if n > 0}, self.rank.scope_totals(
                "sections", where, args
            )[0] or 1
        rows = dict(self._all("SELECT term, df FROM vocab WHERE term = ANY(%s)", ([TOTAL, *terms],)))
        total = rows.pop(TOTAL, 0) or 1
        return {t: n for t, n in rows.items() if n > 0}, total

    def section_matches(self, terms: Sequence[str], scope: Scope, limit: int) -> list[tuple[int, int, float]]:
        """(page id, section id, BM25) of the best sections of the scope holding any of the terms, best first."""
        where, args = scope_sql(scope)
        hits = self.rank.scored("sections", terms, where, args, limit)
        return [(p, s, score) for p, s, _, score in self._sections_at(hits)]

    def page_matches(self, terms: Sequence[str], scope: Scope, limit: int) -> list[tuple[int, float]]:
        """(page id, BM25) of the best pages of the scope holding any of the terms, best first."""
        where, args = scope_sql(scope)
        return self.rank.scored("pages", terms, where, args, limit)

    def name_matches(self, phrases: Sequence[str], scope: Scope, limit: int) -> list[tuple[int, int, str]]:
        """(page id, section id, defined names) of sections whose names hold one of the phrases, best first."""
        where, args = scope_sql(scope)
        hits = self.rank.scored("sections", phrases, where, args, limit, names_only=True)
        return [(p, s, names) for p, s, names, _ in self._sections_at(hits)]

    def best_section(self, page_id: int, terms: Sequence[str], scope: Scope) -> int | None:
        """A page's best section for the terms (for a page found by page-level BM25 only)."""
        page = ("p.id = %(page)s", {"page": page_id})
        hits = self.rank.scored("sections", terms, *page, 1, statistics=scope_sql(scope))
        found = self._sections_at(hits)
        return found[0][1] if found else None

    def _sections_at(self, hits: list[tuple[int, float]]) -> list[tuple[int, int, str, float]]:
        """(page id, section id, names, score) of scored sections (keys of rank.section_place), in their order."""
        places = [section_place(key) for key, _ in hits]
        rows = self._all(
            "SELECT s.page_id, s.ord, s.id, s.names FROM sections s "
            "JOIN unnest(%s::bigint[], %s::int[]) AS w(page_id, ord) USING (page_id, ord)",
            ([p for p, _ in places], [o for _, o in places]),
        )
        found = {(p, o): (i, names) for p, o, i, names in rows}
        out = []
        for (page_id, ord_), (_, score) in zip(places, hits, strict=True):
            if (page_id, ord_) in found:
                sid, names = found[page_id, ord_]
                out.append((page_id, sid, names, score))
        return out

    def keyword_matches(
        self, terms: Sequence[str], scope: Scope, limit: int
    ) -> list[tuple[int, str, str, float]]:
        """(target page id, anchor, term tokens, BM25) of the keyword-index entries holding any of the terms
        whose target is a listed page of the scope, best first."""
        listing, args = scope_sql(scope, "q.key")  # the same parameters, on the listing index page's key
        totals = self.rank.per_state(
            ("keywords", listing, tuple(sorted(args.items()))),
            lambda: keywords.keyword_totals(self.db, listing, args),
        )
        return keywords.keyword_matches(self.db, terms, scope_sql(scope), listing, limit, totals)

    def inbound_terms(self, page_ids: Sequence[int], terms: Sequence[str]) -> list[tuple[int, str]]:
        """(page id, term) of these terms that other pages' links to these pages say."""
        return inbound.inbound_terms(self.db, page_ids, terms)

    def links_from(self, page_ids: Sequence[int]) -> dict[int, dict[str, frozenset[str]]]:
        """Per page: the pages its links point at (keys), each with the terms those links say."""
        return inbound.links_from(self.db, page_ids)

    def page_titles(self, keys: Sequence[str]) -> list[tuple[str, str]]:
        """(key, title) of those of these pages that are indexed."""
        return [
            (k, t) for k, t in self._all("SELECT key, title FROM pages WHERE key = ANY(%s)", (list(keys),))
        ]

    def titled_pages(self, fragment: str, scope: Scope, limit: int) -> list[tuple[int, str]]:
        """(page id, title) of listed pages of the scope whose title holds the fragment as written."""
        where, args = scope_sql(scope)
        sql = f"SELECT p.id, p.title FROM pages p WHERE p.listed AND p.title LIKE %(like)s AND {where} LIMIT %(n)s"
        return [(i, t) for i, t in self._all(sql, {**args, "like": like_pattern(fragment), "n": limit})]

    def pages_holding(self, term: str, page_ids: Sequence[int]) -> list[int]:
        """Those of these pages whose full text holds the term (every token of it)."""
        pieces = sorted(set(text.tokens(term)))
        if not pieces or not page_ids:
            return []
        known = self.rank.holding(pieces, page_ids)  # the rows this snapshot's ranking read already
        if known is not None:
            return known
        rows = self._all(
            "SELECT term, bundle, data FROM terms WHERE term = ANY(%s) "
            "AND bundle IN (SELECT bundle FROM pages WHERE id = ANY(%s))",
            (pieces, list(page_ids)),
        )
        data = decode([bytes(d) for _, _, d in rows], [b for _, b, _ in rows])
        # An entry whose page counts are all 0 holds the term in a section's path alone.
        held = np.isin(data.page_id, list(page_ids)) & data.page.any(axis=1)
        found: dict[int, set[str]] = {}
        for row, page_id in zip(data.row[held].tolist(), data.page_id[held].tolist(), strict=True):
            found.setdefault(page_id, set()).add(rows[row][0])
        return [pid for pid, terms in found.items() if len(terms) == len(pieces)]

    def page_rows(self, page_ids: Iterable[int]) -> list[PageRow]:
        sql = "SELECT id, key, title, fetched_at, hash FROM pages WHERE id = ANY(%s)"
        return [PageRow(i, k, t, f, h or "") for i, k, t, f, h in self._all(sql, (list(page_ids),))]

    def section_rows(self, section_ids: Iterable[int]) -> list[SectionRow]:
        sql = "SELECT id, page_id, anchor, title, path, text, ztext, names FROM sections WHERE id = ANY(%s)"
        return [
            SectionRow(*row[:5], text.stored_text(*row[5:7]), row[7] or "")
            for row in self._all(sql, (list(section_ids),))
        ]

    def section_ids_at(self, places: Sequence[tuple[int, int]]) -> dict[tuple[int, int], int]:
        if not places:
            return {}
        sql = (
            "SELECT s.page_id, s.ord, s.id FROM sections s "
            "JOIN unnest(%s::bigint[], %s::int[]) AS w(page_id, ord) USING (page_id, ord)"
        )
        rows = self._all(sql, ([p for p, _ in places], [o for _, o in places]))
        return {(p, o): i for p, o, i in rows}

    def following_sections(self, section_ids: Iterable[int], count: int) -> list[SectionRow]:
        sql = (
            "SELECT t.id, t.page_id, t.anchor, t.title, t.path, t.text, t.ztext, t.names FROM sections s "
            "JOIN sections t ON t.page_id = s.page_id AND t.ord > s.ord AND t.ord <= s.ord + %s "
            "WHERE s.id = ANY(%s) ORDER BY t.page_id, t.ord"
        )
        return [
            SectionRow(*row[:5], text.stored_text(*row[5:7]), row[7] or "")
            for row in self._all(sql, (count, list(section_ids)))
        ]

    def page_shapes(self, page_ids: Sequence[int]) -> dict[int, tuple[int, int, int]]:
        """Per listed page: its number of sections, of sections with a content digest, and of their words."""
        sql = "SELECT id, sections, digests, words FROM page_shapes WHERE id = ANY(%s)"
        return {pid: (n, d, w) for pid, n, d, w in self._all(sql, (list(page_ids),))}

    def section_copies(
        self, section_ids: Sequence[int], scope: Scope, near: bool = True
    ) -> list[tuple[int, int, int]]:
        """(section id, other page id, its section id): listed pages of the scope holding the same content."""
        where, args = scope_sql(scope)
        held, _ = scope_sql(scope, "q.key")  # the same parameters
        sql = (
            "SELECT DISTINCT a.id, b.page_id, b.id FROM section_digests a "
            "JOIN section_digests b ON b.digest=a.digest AND b.page_id<>a.page_id JOIN pages p ON p.id=b.page_id "
            f"WHERE a.id = ANY(%(ids)s){'' if near else WHOLE_DIGESTS} AND p.listed AND {where} AND "
            # Counted among the scope's pages (another source's footer is not this one's), no further than the
            # cap: a footer's digest is on thousands of pages.
            "(SELECT count(*) FROM (SELECT 1 FROM section_digests c JOIN pages q ON q.id=c.page_id "
            f"WHERE c.digest=a.digest AND {held} LIMIT {COPIES_CAP + 1}) AS held) <= {COPIES_CAP}"
        )
        return [tuple(r) for r in self._all(sql, {**args, "ids": list(section_ids)})]

    def digested_below(self, section_ids: Sequence[int]) -> dict[int, int]:
        """Per section without a content digest: the first one under it that has one (`DIGESTED_BELOW`)."""
        sql = DIGESTED_BELOW.format(ids="= ANY(%s)")
        return {sid: below for sid, below in self._all(sql, (list(section_ids),)) if below is not None}

    def shared_digests(
        self, page_id: int, scope: Scope, other: int | None = None, most: int | None = None, near: bool = True
    ) -> int:
        """How many of one page's digested sections another listed page of the scope holds too (that page, or any
        with at most `most` digests; `near`: by a digest without a section's last sentence too)."""
        where, args = scope_sql(scope)
        which = "b.page_id=%(other)s" if other is not None else "b.page_id<>%(page)s"
        smaller = (
            "" if most is None else " AND b.page_id IN (SELECT id FROM page_shapes WHERE digests <= %(most)s)"
        )
        sql = (
            "SELECT count(DISTINCT a.id) FROM section_digests a WHERE a.page_id=%(page)s AND EXISTS (SELECT 1 "
            "FROM section_digests b JOIN pages p ON p.id=b.page_id "
            f"WHERE b.digest=a.digest{'' if near else WHOLE_DIGESTS} AND {which} AND p.listed AND {where}{smaller})"
        )
        row = self._one(sql, {**args, "page": page_id, "other": other, "most": most})
        return int(row[0]) if row else 0

    def vectors(self, model: str, page_ids: Sequence[int]) -> list[tuple[int, bytes]]:
        """Stored section vectors of `model` for these pages (those that have some)."""
        sql = "SELECT id, vecs FROM page_vectors WHERE model=%s AND id = ANY(%s)"
        return [(i, bytes(v)) for i, v in self._all(sql, (model, list(page_ids)))]

    def vector_pages(self, model: str, scope: Scope) -> list[int]:
        """Ids of the listed pages of the scope with stored vectors of `model`, ascending."""
        where, args = scope_sql(scope)
        rows = self._all(
            "SELECT v.id FROM page_vectors v JOIN pages p ON p.id=v.id "
            f"WHERE v.model=%(model)s AND p.listed AND {where} ORDER BY v.id",
            {"model": model, **args},
        )
        return [pid for (pid,) in rows]
