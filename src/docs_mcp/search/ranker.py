"""Site ranking: which indexed pages answer a query (section and page BM25, title and defined-name signals).

Reads one snapshot of the index (`SiteIndex.reading`), limited to a scope (the configured roots).
"""

from __future__ import annotations

import re
import sqlite3
import threading

from docs_mcp.model.hits import SearchHit
from docs_mcp.search.semantic import VectorCache, active_model, embedder, rerank_pages
from docs_mcp.search.snippets import snippet
from docs_mcp.settings import (
    AGGREGATE_LOOKAHEAD,
    AGGREGATE_SIZE_RATIO,
    COMMON_TERM_SHARE,
    MAX_POSTINGS,
    MIN_QUERY_TERMS,
    NAME_CANDIDATES,
    NAME_MATCH_BONUS,
    PAGE_CANDIDATES,
    PAGE_EVIDENCE_SECTIONS,
    PAGE_SHARE,
    PAGE_WEIGHTS,
    RELEASE_NOTES_FACTOR,
    SECTION_CANDIDATES,
    SECTION_WEIGHTS,
    SEMANTIC_CACHE_BYTES,
    SEMANTIC_TOP,
    SEMANTIC_WEIGHT,
    TITLE_MATCH_BONUS,
)
from docs_mcp.store.index import Scope, SiteIndex
from docs_mcp.store.vectorrows import stored_vectors
from docs_mcp.text.terms import bounded_query, names_match, query_names, query_terms, tokenize
from docs_mcp.text.terms import idf as term_idf
from docs_mcp.themes import RELEASE_NOTES_QUERY, RELEASE_NOTES_TITLE

#: Titles memoized at most (a page id is never reused, so an entry never goes stale; this bounds memory).
TITLE_MEMO_SIZE = 50_000


def match_expression(terms: list[str]) -> str | None:
    """FTS5 query: any of the terms (BM25 weighs rare ones up)."""
    if not terms:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def _page_evidence(
    page_bm25: dict[int, float], by_page: dict[int, list[tuple[int, float]]]
) -> dict[int, float]:
    """A page's own score: its page-level BM25 plus its PAGE_EVIDENCE_SECTIONS best sections, each normalized.

    FTS5's BM25 gives a term in more than half the documents no weight at all. On a site of 80 pages
    "version" and "url" are such terms, so the page about URL versioning scored 0 at page level; its
    sections, among 1,300, still show the match. `by_page` lists each page's sections best first.
    """
    sections = {pid: sum(score for _, score in v[:PAGE_EVIDENCE_SECTIONS]) for pid, v in by_page.items()}
    top_page = max(page_bm25.values(), default=0.0) or 1.0
    top_sections = max(sections.values(), default=0.0) or 1.0
    return {
        pid: page_bm25.get(pid, 0.0) / top_page + sections.get(pid, 0.0) / top_sections
        for pid in page_bm25.keys() | sections.keys()
    }


def _one_per_content(
    ranked: list[int], titles: dict[int, tuple[str, frozenset[str], str]], limit: int
) -> list[int]:
    """The best `limit` pages; a page one source serves at two addresses (`dir/`, `dir/index.html`) only once."""
    seen: set[str] = set()
    out = []
    for pid in ranked:
        digest = titles[pid][2] if pid in titles else f"page {pid}"
        if digest not in seen:
            seen.add(digest)
            out.append(pid)
            if len(out) == limit:
                break
    return out


class SiteRanker:
    """Ranks an index's pages for a query; each search reads one snapshot on its thread's own connection."""

    def __init__(self, index: SiteIndex):
        self.index = index
        #: Per page id: title, its tokens, and key + content hash (a page served at two addresses is shown once).
        #: Ids are never reused (AUTOINCREMENT), so an entry stays right for as long as its page exists.
        self._title_memo: dict[int, tuple[str, frozenset[str], str, str]] = {}
        self._memo_lock = threading.Lock()
        #: (connection, data_version, scope) → whether the scope holds every page of the index.
        self._whole_memo: dict[tuple[int, int, Scope], bool] = {}
        #: The `semantic` extra: section vectors of pages ranked so far, read per page on first use.
        self._vectors = VectorCache(SEMANTIC_CACHE_BYTES)

    def search(self, query: str, limit: int, scope: Scope) -> list[SearchHit]:
        """Pages of the scope ranked by their best section's BM25 blended with page-level BM25, each pointing at
        its best section. Hits carry the page's key as `url` and no source: the caller names them."""
        query = bounded_query(query)
        with self.index.reading() as db:
            return self._search(db, query, limit, scope)

    def _search(self, db: sqlite3.Connection, query: str, limit: int, scope: Scope) -> list[SearchHit]:
        terms = query_terms(query)
        df, total = self.index.doc_freq(db, terms)
        expr = match_expression(self._selective_terms(terms, df, total))
        if expr is None:
            return []
        whole = self._whole_index(db, scope)
        where, scope_args = ("1", []) if whole else scope.sql()
        bm25 = "-bm25(sections_fts, {}, {}, {}, {})".format(*SECTION_WEIGHTS)
        if whole:
            # Rank inside FTS alone, then look up only the rows kept: joining every match costs more.
            top = db.execute(
                f"SELECT rowid, {bm25} AS score FROM sections_fts WHERE sections_fts MATCH ? "
                "ORDER BY score DESC LIMIT ?",
                (expr, SECTION_CANDIDATES),
            ).fetchall()
            marks = ",".join("?" * len(top))
            owner = dict(
                db.execute(f"SELECT id, page_id FROM sections WHERE id IN ({marks})", [r for r, _ in top])
            )
            sec_rows = [(owner[r], r, score) for r, score in top if r in owner]
        else:
            sec_rows = db.execute(
                f"SELECT s.page_id, s.id, {bm25} AS score FROM sections_fts f JOIN sections s ON s.id=f.rowid "
                f"JOIN pages p ON p.id=s.page_id WHERE sections_fts MATCH ? AND {where} "
                "ORDER BY score DESC LIMIT ?",
                (expr, *scope_args, SECTION_CANDIDATES),
            ).fetchall()
        page_bm25 = "-bm25(pages_fts, {}, {}, {}, {})".format(*PAGE_WEIGHTS)
        page_rows = db.execute(
            f"SELECT p.id, {page_bm25} AS score FROM pages_fts f JOIN pages p ON p.id=f.rowid "
            f"WHERE pages_fts MATCH ? AND {where} ORDER BY score DESC LIMIT ?"
            if not whole  # a page's FTS rowid is its id: no join needed
            else f"SELECT rowid, {page_bm25} AS score FROM pages_fts WHERE pages_fts MATCH ? ORDER BY score DESC LIMIT ?",
            (expr, *scope_args, PAGE_CANDIDATES),
        ).fetchall()
        defines = self._defining_pages(db, query, scope)
        # Section rows come best first, so each page's list does too.
        by_page: dict[int, list[tuple[int, float]]] = {}
        for page_id, section_id, score in sec_rows:
            by_page.setdefault(page_id, []).append((section_id, score))
        best_section = {pid: v[0] for pid, v in by_page.items()}
        page_score = _page_evidence(dict(page_rows), by_page)
        top_sec = max((s for _, s in best_section.values()), default=0.0) or 1.0
        top_page = max(page_score.values(), default=0.0) or 1.0
        candidates = set(best_section) | set(page_score) | set(defines)
        titles = self._titles(db, candidates, scope)
        idf = {t: term_idf(total, df.get(t, 0)) for t in terms}
        idf_sum = sum(idf.values()) or 1.0
        demote = not re.search(RELEASE_NOTES_QUERY, query)
        combined = {}
        for pid in candidates:
            section_score = best_section.get(pid, (0, 0.0))[1]
            score = (1 - PAGE_SHARE) * section_score / top_sec + PAGE_SHARE * page_score.get(
                pid, 0.0
            ) / top_page
            title, title_tokens, _ = titles.get(pid, ("", frozenset(), ""))
            score += TITLE_MATCH_BONUS * sum(idf[t] for t in terms if t in title_tokens) / idf_sum
            if pid in defines:
                score += NAME_MATCH_BONUS
            if demote and re.search(RELEASE_NOTES_TITLE, title):
                score *= RELEASE_NOTES_FACTOR
            combined[pid] = score
        if SEMANTIC_WEIGHT > 0 and (model := active_model()) is not None:
            combined = self._semantic(db, model, query, combined)
        # A page that defines the queried name links to that definition, not to its best text match.
        section_of = {pid: defines.get(pid) or best_section.get(pid, (None, 0.0))[0] for pid in combined}
        ordered = sorted(combined, key=lambda pid: -combined[pid])
        distinct = _one_per_content(ordered, titles, limit * AGGREGATE_LOOKAHEAD)
        ranked = self._without_aggregate_copies(db, distinct, section_of)[:limit]
        return self._hits(db, [(pid, section_of[pid], combined[pid]) for pid in ranked], query)

    def _semantic(
        self, db: sqlite3.Connection, name: str, query: str, combined: dict[int, float]
    ) -> dict[int, float]:
        """The `semantic` extra: the best pages re-ranked by their best section's cosine with the query, blended
        in. Only these pages' vectors are read (once each), so a refresh writing pages costs nothing here."""
        model = embedder(name)
        if model is None:
            return combined
        head = sorted(combined, key=lambda p: -combined[p])[:SEMANTIC_TOP]
        missing = self._vectors.missing(name, head)
        if missing:
            self._vectors.add(name, model.dim, stored_vectors(db, name, missing))
        cosine = self._vectors.cosines(name, model.embed([query])[0], head)
        return rerank_pages(combined, cosine, SEMANTIC_WEIGHT, SEMANTIC_TOP)

    @staticmethod
    def _without_aggregate_copies(
        db: sqlite3.Connection, ranked: list[int], section_of: dict[int, int | None]
    ) -> list[int]:
        """Drop a hit whose best section is, word for word, that of a page AGGREGATE_SIZE_RATIO times smaller.

        All-in-one pages (Node's all.html, mdBook's print.html, single-page builds) repeat every page of the
        site; their copy would take a result slot from the page it came from. Sibling pages of one size that
        share a boilerplate section are not copies of each other.
        """
        sids = [section_of[pid] for pid in ranked if section_of[pid] is not None]
        if len(sids) < 2:
            return ranked
        marks = ",".join("?" * len(sids))
        rows = db.execute(
            f"SELECT s.page_id, s.text, (SELECT count(*) FROM sections c WHERE c.page_id=s.page_id) "
            f"FROM sections s WHERE s.id IN ({marks})",
            sids,
        ).fetchall()
        smallest: dict[str, int] = {}  # section text → section count of the smallest page showing it
        info = {}
        for page_id, text, count in rows:
            if text:
                info[page_id] = (text, count)
                smallest[text] = min(count, smallest.get(text, count))
        return [
            pid
            for pid in ranked
            if pid not in info or info[pid][1] < AGGREGATE_SIZE_RATIO * smallest[info[pid][0]]
        ]

    @staticmethod
    def _defining_pages(db: sqlite3.Connection, query: str, scope: Scope) -> dict[int, int]:
        """Pages with a section defining an API name or option of the query (exact or qualified match)."""
        wanted = query_names(query)
        # FTS finds candidates by the name's last two parts (so `a.b.Cls.meth` finds `Cls.meth`); only an
        # exact or qualified match counts, so `round` finds the built-in `round`, not every `__round__`.
        phrases = match_expression(
            sorted({" ".join(tokenize(".".join(w.split(".")[-2:]))) for w in wanted} - {""})
        )
        if phrases is None:
            return {}
        where, scope_args = scope.sql()
        rows = db.execute(
            "SELECT s.page_id, s.id, s.names FROM sections_fts f JOIN sections s ON s.id=f.rowid "
            f"JOIN pages p ON p.id=s.page_id WHERE sections_fts MATCH ? AND {where} ORDER BY f.rank LIMIT ?",
            (f"names : ({phrases})", *scope_args, NAME_CANDIDATES),
        ).fetchall()
        out: dict[int, int] = {}
        for page_id, section_id, names in rows:
            if any(names_match(n, w) for n in names.split("\n") for w in wanted):
                out.setdefault(page_id, section_id)
        return out

    def _whole_index(self, db: sqlite3.Connection, scope: Scope) -> bool:
        """Whether every page of the index is in scope (one server per cache dir, the usual case): then
        ranking needs no join to the pages table. Counted once per snapshot that changed."""
        version = db.execute("PRAGMA data_version").fetchone()[0]
        key = (id(db), version, scope)
        whole = self._whole_memo.get(key)
        if whole is None:
            where, args = scope.sql("key")
            inside = db.execute(f"SELECT count(*) FROM pages WHERE {where}", args).fetchone()[0]
            whole = inside == db.execute("SELECT count(*) FROM pages").fetchone()[0]
            if len(self._whole_memo) > 64:
                self._whole_memo.clear()
            self._whole_memo[key] = whole
        return whole

    def _titles(
        self, db: sqlite3.Connection, page_ids: set[int], scope: Scope
    ) -> dict[int, tuple[str, frozenset[str], str]]:
        """Title, title tokens and owner + content hash per page (two addresses of one page share the last)."""
        missing = [pid for pid in page_ids if pid not in self._title_memo]
        if missing:
            marks = ",".join("?" * len(missing))
            rows = db.execute(
                f"SELECT id, title, key, hash FROM pages WHERE id IN ({marks})", missing
            ).fetchall()
            with self._memo_lock:
                if len(self._title_memo) > TITLE_MEMO_SIZE:
                    self._title_memo.clear()
                for pid, title, key, digest in rows:
                    self._title_memo[pid] = (title, frozenset(tokenize(title)), key, digest or f"page {pid}")
        out = {}
        for pid in page_ids:
            memo = self._title_memo.get(pid)
            if memo is not None:
                title, tokens, key, digest = memo
                # Copies are judged within one root: the same page under two roots is two sources' page.
                owner = next((p for p in scope.prefixes if key.startswith(p)), "")
                out[pid] = (title, tokens, f"{owner}\n{digest}")
        return out

    @staticmethod
    def _selective_terms(terms: list[str], df: dict[str, int], total: int) -> list[str]:
        """Drop terms most sections contain (keeping the MIN_QUERY_TERMS rarest at least)."""
        if len(terms) <= MIN_QUERY_TERMS:
            return terms
        common = COMMON_TERM_SHARE * total
        kept, postings = [], 0
        for t in sorted(
            (t for t in terms if t in df), key=df.__getitem__
        ):  # rarest first; unknown terms match nothing
            n = df[t]
            if len(kept) >= MIN_QUERY_TERMS and (n > common or postings + n > MAX_POSTINGS):
                break
            kept.append(t)
            postings += n
        return kept or terms

    def _hits(
        self, db: sqlite3.Connection, ranked: list[tuple[int, int | None, float]], query: str
    ) -> list[SearchHit]:
        """Build the hits with two queries in all (pages, sections), not two per hit."""
        ranked = [
            (pid, sid if sid is not None else self._best_section(db, pid, query), score)
            for pid, sid, score in ranked
        ]
        page_ids = [pid for pid, _, _ in ranked]
        section_ids = [sid for _, sid, _ in ranked if sid is not None]
        pages = {
            row[0]: row[1:]
            for row in db.execute(
                f"SELECT id, key, title, fetched_at FROM pages WHERE id IN ({','.join('?' * len(page_ids))})",
                page_ids,
            )
        }
        secs = {
            row[0]: row[1:]
            for row in db.execute(
                f"SELECT id, anchor, title, path, text FROM sections WHERE id IN ({','.join('?' * len(section_ids))})",
                section_ids,
            )
        }
        hits = []
        for pid, sid, score in ranked:
            if pid not in pages:  # cannot happen within one snapshot; never a KeyError if it did
                continue
            key, title, fetched_at = pages[pid]
            sec = secs.get(sid)
            if sec is None:
                hits.append(SearchHit(key, title, "", (), "", "", fetched_at, score))
                continue
            anchor, sec_title, path, text = sec
            parts = [p for p in path.split(" > ") if p and p != title]
            if sec_title and sec_title != title:
                parts.append(sec_title)
            hits.append(
                SearchHit(key, title, anchor, tuple(parts), snippet(text, query), "", fetched_at, score)
            )
        return hits

    @staticmethod
    def _best_section(db: sqlite3.Connection, page_id: int, query: str) -> int | None:
        """For a page found by page-level BM25 only: its best-matching section."""
        lo, hi = db.execute("SELECT min(id), max(id) FROM sections WHERE page_id=?", (page_id,)).fetchone()
        if lo is None:
            return None
        # A page's sections are written together, so their ids are one range: FTS5 seeks to it instead of
        # ranking every match in the index (37 → 1.2 ms at 50,000 sections). No join: with one, SQLite
        # applies the range after the full-text scan.
        row = db.execute(
            "SELECT rowid FROM sections_fts WHERE sections_fts MATCH ? AND rowid BETWEEN ? AND ? "
            "ORDER BY rank LIMIT 1",
            (match_expression(query_terms(query)), lo, hi),
        ).fetchone()
        return row[0] if row else None
