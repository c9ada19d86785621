"""The persistent site index: pages, sections and converted documents in SQLite, searched with FTS5 BM25."""

from __future__ import annotations

import math
import re
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .analysis import index_text, names_match, query_names, query_terms, tokenize
from .config import (
    NAME_MATCH_BONUS,
    RELEASE_NOTES_FACTOR,
    RELEASE_NOTES_QUERY,
    RELEASE_NOTES_TITLE,
    TITLE_MATCH_BONUS,
)
from .document import Document
from .snippets import snippet
from .tools import SearchHit

SCHEMA_VERSION = 2
#: Column weights: a term in a section's heading counts most, then the API names it defines
#: (definition-list terms), its heading path, and its body least.
SECTION_WEIGHTS = (8.0, 4.0, 1.0, 6.0)
#: Page-level BM25 (title, headings, whole text, defined names) complements section scores.
PAGE_WEIGHTS = (6.0, 3.0, 1.0, 3.0)
#: Share of the page-level score in a page's final score (the rest is its best section's).
PAGE_SHARE = 0.4
SECTION_CANDIDATES = 100
PAGE_CANDIDATES = 40
#: Sections checked for an exact API-name match (a one-letter option like `-O` has many partial ones).
NAME_CANDIDATES = 500
#: Query terms in more than this share of sections add little to BM25 but most of its cost: dropped.
COMMON_TERM_SHARE = 0.20
MIN_QUERY_TERMS = 2
#: Most postings one query may score: the rarest terms are kept while their document counts fit. BM25's
#: cost grows with matching rows, so this keeps latency flat as an index grows (50,000 sections and more).
MAX_POSTINGS = 2_000

_SCHEMA = f"""
PRAGMA journal_mode=WAL;
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS pages(
    id INTEGER PRIMARY KEY, source TEXT NOT NULL, key TEXT NOT NULL UNIQUE, url TEXT NOT NULL,
    title TEXT NOT NULL, fetched_at REAL NOT NULL, etag TEXT, last_modified TEXT, hash TEXT,
    listed INTEGER NOT NULL DEFAULT 1, links TEXT, doc BLOB);
CREATE TABLE IF NOT EXISTS sections(
    id INTEGER PRIMARY KEY, page_id INTEGER NOT NULL, ord INTEGER NOT NULL, anchor TEXT NOT NULL,
    level INTEGER NOT NULL, title TEXT NOT NULL, path TEXT NOT NULL, text TEXT NOT NULL,
    names TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS sections_page ON sections(page_id);
CREATE VIRTUAL TABLE IF NOT EXISTS sections_fts USING fts5(title, path, body, names, tokenize='unicode61');
CREATE VIRTUAL TABLE IF NOT EXISTS pages_fts USING fts5(title, headings, body, names, tokenize='unicode61');
INSERT OR IGNORE INTO meta VALUES ('schema', '{SCHEMA_VERSION}');
"""


@dataclass(frozen=True)
class PageState:
    """What a refresh needs to know about an indexed page."""

    key: str
    fetched_at: float
    etag: str
    last_modified: str


def match_expression(terms: list[str]) -> str | None:
    """FTS5 query: any of the terms (BM25 weighs rare ones up)."""
    if not terms:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


class SiteIndex:
    """One SQLite file per cache directory; thread-safe (one connection, one lock, WAL)."""

    def __init__(self, path: Path, fresh_seconds: float = 7 * 86400):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.fresh_seconds = fresh_seconds
        self._lock = threading.RLock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._drop_if_older_schema()
        self._db.executescript(_SCHEMA)
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=10000")
        self._db.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.sections_vocab USING fts5vocab(main, sections_fts, 'row')"
        )
        self._init_rank()
        self._title_memo: dict[int, tuple[str, frozenset[str]]] = {}
        #: Document frequency of every term, loaded once per index generation (a write bumps it).
        self._generation = 0
        self._df: tuple[tuple[int, int], dict[str, int], int] | None = None

    def _drop_if_older_schema(self) -> None:
        """An index written by another version is a stale cache: drop it, the next refresh rebuilds it."""
        try:
            row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        except sqlite3.OperationalError:  # a new file: no tables yet
            return
        if row is None or row[0] != str(SCHEMA_VERSION):
            for table in ("sections_fts", "pages_fts", "sections", "pages", "meta"):
                self._db.execute(f"DROP TABLE IF EXISTS {table}")

    def _init_rank(self) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO sections_fts(sections_fts, rank) VALUES('rank', ?)",
                ("bm25({}, {}, {}, {})".format(*SECTION_WEIGHTS),),
            )
            self._db.execute(
                "INSERT INTO pages_fts(pages_fts, rank) VALUES('rank', ?)",
                ("bm25({}, {}, {}, {})".format(*PAGE_WEIGHTS),),
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # --- writing ---------------------------------------------------------------------------------
    def put(self, key: str, doc: Document, listed: bool = True, links: list[str] | None = None) -> None:
        """Insert or replace a page with its sections; `listed=False` keeps it readable but out of search."""
        rows = []
        for i, s in enumerate(doc.sections):
            path = " > ".join(doc.path(i)[:-1]) or doc.title
            rows.append((i, s.id, s.level, s.title, path, s.text, "\n".join(s.names)))
        headings = " ".join(s.title for s in doc.sections)
        names = "\n".join(r[-1] for r in rows)
        body = " ".join(s.text for s in doc.sections)
        with self._lock:
            db = self._db
            db.execute("BEGIN")
            try:
                self._delete(key)
                cur = db.execute(
                    "INSERT INTO pages(source, key, url, title, fetched_at, etag, last_modified, hash, listed, links, doc) "
                    "VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    (
                        doc.source,
                        key,
                        doc.url,
                        doc.title,
                        doc.fetched_at,
                        doc.etag,
                        doc.last_modified,
                        doc.content_hash,
                        int(listed),
                        "\n".join(links or ()),
                        doc.to_blob(),
                    ),
                )
                page_id = cur.lastrowid
                if listed:
                    db.execute(
                        "INSERT INTO pages_fts(rowid, title, headings, body, names) VALUES (?,?,?,?,?)",
                        (
                            page_id,
                            index_text(doc.title),
                            index_text(headings),
                            index_text(body),
                            index_text(names),
                        ),
                    )
                for ordinal, anchor, level, title, path, text, defined in rows:
                    cur = db.execute(
                        "INSERT INTO sections(page_id, ord, anchor, level, title, path, text, names) "
                        "VALUES (?,?,?,?,?,?,?,?)",
                        (page_id, ordinal, anchor, level, title, path, text, defined),
                    )
                    if listed:
                        db.execute(
                            "INSERT INTO sections_fts(rowid, title, path, body, names) VALUES (?,?,?,?,?)",
                            (
                                cur.lastrowid,
                                index_text(title),
                                index_text(path),
                                index_text(text),
                                index_text(defined),
                            ),
                        )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            self._generation += 1

    def _delete(self, key: str) -> None:
        row = self._db.execute("SELECT id FROM pages WHERE key=?", (key,)).fetchone()
        if not row:
            return
        page_id = row[0]
        self._title_memo.pop(page_id, None)
        self._generation += 1
        self._db.execute(
            "DELETE FROM sections_fts WHERE rowid IN (SELECT id FROM sections WHERE page_id=?)", (page_id,)
        )
        self._db.execute("DELETE FROM sections WHERE page_id=?", (page_id,))
        self._db.execute("DELETE FROM pages_fts WHERE rowid=?", (page_id,))
        self._db.execute("DELETE FROM pages WHERE id=?", (page_id,))

    def remove(self, key: str) -> None:
        with self._lock:
            self._db.execute("BEGIN")
            self._delete(key)
            self._db.execute("COMMIT")

    def touch(self, key: str, fetched_at: float | None = None) -> None:
        """A 304: the stored copy is fresh again."""
        with self._lock:
            self._db.execute("UPDATE pages SET fetched_at=? WHERE key=?", (fetched_at or time.time(), key))

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES (?,?)", (key, value))

    # --- reading ---------------------------------------------------------------------------------
    def meta(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def page_count(self, source: str | None = None) -> int:
        with self._lock:
            if source:
                return self._db.execute("SELECT count(*) FROM pages WHERE source=?", (source,)).fetchone()[0]
            return self._db.execute("SELECT count(*) FROM pages").fetchone()[0]

    def section_count(self) -> int:
        with self._lock:
            return self._db.execute("SELECT count(*) FROM sections").fetchone()[0]

    def pages(self, source: str) -> list[PageState]:
        with self._lock:
            rows = self._db.execute(
                "SELECT key, fetched_at, etag, last_modified FROM pages WHERE source=?", (source,)
            ).fetchall()
        return [PageState(k, f, e or "", m or "") for k, f, e, m in rows]

    def links(self, key: str) -> list[str]:
        """Links seen on a page when it was last fetched (a 304 does not resend them)."""
        with self._lock:
            row = self._db.execute("SELECT links FROM pages WHERE key=?", (key,)).fetchone()
        return row[0].split("\n") if row and row[0] else []

    def load_document(self, key: str) -> Document | None:
        """The stored converted page, while fresh (no refetch after a restart)."""
        with self._lock:
            row = self._db.execute("SELECT doc, fetched_at FROM pages WHERE key=?", (key,)).fetchone()
        if not row or row[0] is None or time.time() - row[1] > self.fresh_seconds:
            return None
        return Document.from_blob(row[0])

    def headings(self, url: str) -> list[tuple[int, str, str]]:
        key = url.split("#", 1)[0]
        with self._lock:
            rows = self._db.execute(
                "SELECT s.level, s.anchor, s.title FROM sections s JOIN pages p ON p.id=s.page_id "
                "WHERE (p.url=? OR p.key=?) AND s.level>0 ORDER BY s.ord",
                (key, key),
            ).fetchall()
        return [(lv, a, t) for lv, a, t in rows]

    def search(self, query: str, limit: int, source: str | None = None) -> list[SearchHit]:
        """Pages ranked by their best section's BM25 blended with page-level BM25; best section per page."""
        with self._lock:
            terms = query_terms(query)
            df, total = self._doc_freq(terms)
            expr = match_expression(self._selective_terms(terms, df, total))
            if expr is None:
                return []
            src = "AND p.source=?" if source else ""
            args: tuple = (expr, source) if source else (expr,)
            bm25 = "-bm25(sections_fts, {}, {}, {}, {})".format(*SECTION_WEIGHTS)
            if source:
                sec_rows = self._db.execute(
                    f"SELECT s.page_id, s.id, {bm25} AS score FROM sections_fts f JOIN sections s ON s.id=f.rowid "
                    f"JOIN pages p ON p.id=s.page_id WHERE sections_fts MATCH ? {src} ORDER BY score DESC LIMIT ?",
                    (*args, SECTION_CANDIDATES),
                ).fetchall()
            else:
                # Rank inside FTS alone, then join only the rows kept: joining every match costs more.
                top = self._db.execute(
                    f"SELECT rowid, {bm25} AS score FROM sections_fts WHERE sections_fts MATCH ? "
                    "ORDER BY score DESC LIMIT ?",
                    (expr, SECTION_CANDIDATES),
                ).fetchall()
                marks = ",".join("?" * len(top))
                owner = (
                    dict(
                        self._db.execute(
                            f"SELECT id, page_id FROM sections WHERE id IN ({marks})", [r for r, _ in top]
                        ).fetchall()
                    )
                    if top
                    else {}
                )
                sec_rows = [(owner[r], r, score) for r, score in top if r in owner]
            page_bm25 = "-bm25(pages_fts, {}, {}, {}, {})".format(*PAGE_WEIGHTS)
            if source:
                page_sql = (
                    f"SELECT p.id, {page_bm25} AS score FROM pages_fts f JOIN pages p ON p.id=f.rowid "
                    f"WHERE pages_fts MATCH ? {src} ORDER BY score DESC LIMIT ?"
                )
            else:  # a page's FTS rowid is its id: no join needed
                page_sql = f"SELECT rowid, {page_bm25} AS score FROM pages_fts WHERE pages_fts MATCH ? ORDER BY score DESC LIMIT ?"
            page_rows = self._db.execute(page_sql, (*args, PAGE_CANDIDATES)).fetchall()
            defines = self._defining_pages(query)
        best_section: dict[int, tuple[int, float]] = {}
        for page_id, section_id, score in sec_rows:
            if page_id not in best_section:
                best_section[page_id] = (section_id, score)
        page_score = dict(page_rows)
        top_sec = max((s for _, s in best_section.values()), default=0.0) or 1.0
        top_page = max(page_score.values(), default=0.0) or 1.0
        candidates = set(best_section) | set(page_score) | set(defines)
        titles = self._titles(candidates)
        idf = {t: math.log(1 + total / (1 + df.get(t, 0))) for t in terms}
        idf_sum = sum(idf.values()) or 1.0
        demote = not re.search(RELEASE_NOTES_QUERY, query)
        combined = {}
        for pid in candidates:
            section_score = best_section.get(pid, (0, 0.0))[1]
            score = (1 - PAGE_SHARE) * section_score / top_sec + PAGE_SHARE * page_score.get(
                pid, 0.0
            ) / top_page
            title, title_tokens = titles.get(pid, ("", frozenset()))
            score += TITLE_MATCH_BONUS * sum(idf[t] for t in terms if t in title_tokens) / idf_sum
            if pid in defines:
                score += NAME_MATCH_BONUS
            if demote and re.search(RELEASE_NOTES_TITLE, title):
                score *= RELEASE_NOTES_FACTOR
            combined[pid] = score
        ranked = sorted(combined, key=lambda pid: -combined[pid])[:limit]
        return self._hits(
            [(pid, best_section.get(pid, (defines.get(pid), 0.0))[0], combined[pid]) for pid in ranked], query
        )

    def _defining_pages(self, query: str) -> dict[int, int]:
        """Pages with a section defining an API name the query gives (`time.sleep`), with that section.

        FTS finds sections whose names hold the name's words; only an exact or qualified match counts,
        so `round` finds the built-in `round`, not every `__round__`.
        """
        wanted = query_names(query)
        phrases = {" ".join(tokenize(w)) for w in wanted} - {""}
        if not phrases:
            return {}
        expr = "names : (" + " OR ".join('"' + p.replace('"', '""') + '"' for p in phrases) + ")"
        rows = self._db.execute(
            "SELECT s.page_id, s.id, s.names FROM sections_fts f JOIN sections s ON s.id=f.rowid "
            "WHERE sections_fts MATCH ? ORDER BY f.rank LIMIT ?",
            (expr, NAME_CANDIDATES),
        ).fetchall()
        out: dict[int, int] = {}
        for page_id, section_id, names in rows:
            if any(names_match(n, w) for n in names.split("\n") for w in wanted):
                out.setdefault(page_id, section_id)
        return out

    def warm(self) -> None:
        """Load the term statistics now (the server calls this at start, so the first search is fast)."""
        with self._lock:
            self._doc_freq([])

    def _doc_freq(self, terms: list[str]) -> tuple[dict[str, int], int]:
        """Sections containing each term, and the number of sections (whole vocabulary cached in memory)."""
        # data_version changes when another connection (an `index` run beside the server) commits.
        generation = (self._generation, self._db.execute("PRAGMA data_version").fetchone()[0])
        if self._df is None or self._df[0] != generation:
            vocab = dict(self._db.execute("SELECT term, doc FROM sections_vocab").fetchall())
            total = self._db.execute("SELECT count(*) FROM sections").fetchone()[0] or 1
            self._df = (generation, vocab, total)
        _, vocab, total = self._df
        return {t: vocab[t] for t in terms if t in vocab}, total

    def _titles(self, page_ids: set[int]) -> dict[int, tuple[str, frozenset[str]]]:
        """Title and title tokens per page; tokens are memoized (titles only change when a page is rewritten)."""
        missing = [pid for pid in page_ids if pid not in self._title_memo]
        if missing:
            marks = ",".join("?" * len(missing))
            for pid, title in self._db.execute(f"SELECT id, title FROM pages WHERE id IN ({marks})", missing):
                self._title_memo[pid] = (title, frozenset(tokenize(title)))
        return {pid: self._title_memo[pid] for pid in page_ids if pid in self._title_memo}

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

    def _hits(self, ranked: list[tuple[int, int | None, float]], query: str) -> list[SearchHit]:
        """Build the hits with two queries in all (pages, sections), not two per hit."""
        with self._lock:
            ranked = [
                (pid, sid if sid is not None else self._best_section(pid, query), score)
                for pid, sid, score in ranked
            ]
            page_ids = [pid for pid, _, _ in ranked]
            section_ids = [sid for _, sid, _ in ranked if sid is not None]
            pages = {
                row[0]: row[1:]
                for row in self._db.execute(
                    f"SELECT id, url, title, source, fetched_at FROM pages WHERE id IN ({','.join('?' * len(page_ids))})",
                    page_ids,
                )
            }
            secs = (
                {
                    row[0]: row[1:]
                    for row in self._db.execute(
                        f"SELECT id, anchor, title, path, text FROM sections WHERE id IN ({','.join('?' * len(section_ids))})",
                        section_ids,
                    )
                }
                if section_ids
                else {}
            )
        hits = []
        for pid, sid, score in ranked:
            url, title, source, fetched_at = pages[pid]
            sec = secs.get(sid)
            if sec is None:
                hits.append(SearchHit(url, title, "", (), "", source, fetched_at, score))
                continue
            anchor, sec_title, path, text = sec
            parts = [p for p in path.split(" > ") if p and p != title]
            if sec_title and sec_title != title:
                parts.append(sec_title)
            hits.append(
                SearchHit(url, title, anchor, tuple(parts), snippet(text, query), source, fetched_at, score)
            )
        return hits

    def _best_section(self, page_id: int, query: str) -> int | None:
        """For a page found by page-level BM25 only: its best-matching section."""
        row = self._db.execute(
            "SELECT s.id FROM sections_fts f JOIN sections s ON s.id=f.rowid WHERE sections_fts MATCH ? "
            "AND s.page_id=? ORDER BY f.rank LIMIT 1",
            (match_expression(query_terms(query)), page_id),
        ).fetchone()
        return row[0] if row else None


class SiteSearch:
    """search_docs over the index, with the build's progress in its status line."""

    def __init__(self, index: SiteIndex, progress: Callable[[], tuple[int, int]] | None = None):
        self.index = index
        self._progress = progress

    def search(self, query: str, limit: int, source: str | None) -> list[SearchHit]:
        return self.index.search(query, limit, source)

    def headings(self, url: str) -> list[tuple[int, str, str]]:
        return self.index.headings(url)

    def progress(self) -> tuple[int, int]:
        return self._progress() if self._progress else (0, 0)

    def status_line(self) -> str:
        pages = self.index.page_count()
        done, total = self.progress()
        if total and done < total:
            return f"index building: indexed {done:,} of ~{total:,} pages so far, results may be incomplete"
        if not pages:
            return "the index is empty (run `docs-mcp index --source …`)"
        return f"index: {pages:,} pages"
