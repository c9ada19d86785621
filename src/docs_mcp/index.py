"""The persistent site index: pages, sections and converted documents in SQLite, searched with FTS5 BM25."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .analysis import index_text
from .config import PAGE_WEIGHTS, SECTION_WEIGHTS
from .document import Document
from .errors import IndexVersionError
from .search import SiteRanker
from .tools import SearchHit

#: Bumped whenever stored rows or the conversion behind stored pages change. 3: plain-text blocks, DocBook
#: refsynopsisdiv sections, the one-container rule for main content, Doxygen permalinks, index pages unlisted.
#: 4: Django/Node.js/MkDocs-Bootstrap containers, rustdoc sections and noise, plain signatures, a
#: redirected address indexed at its final address. 5: stored pages keep their units (anchors, definition
#: entries, defined names, code size) and code notes; sections are split from text without code.
SCHEMA_VERSION = 5
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


class SiteIndex:
    """One SQLite file per cache directory; thread-safe (one connection, one lock, WAL)."""

    def __init__(self, path: Path, fresh_seconds: float = 7 * 86400):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.fresh_seconds = fresh_seconds
        self.lock = threading.RLock()
        self.db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA busy_timeout=10000")
        try:
            self._drop_if_older_schema()
        except BaseException:
            self.db.close()
            raise
        self.db.executescript(_SCHEMA)
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.sections_vocab USING fts5vocab(main, sections_fts, 'row')"
        )
        self._init_rank()
        #: Bumped by every write: the ranker reloads its term statistics when it changes.
        self.generation = 0
        self.ranker = SiteRanker(self)

    @contextmanager
    def _transaction(self, begin: str = "BEGIN") -> Iterator[sqlite3.Connection]:
        """One write transaction: committed when the block ends, rolled back if it raises."""
        self.db.execute(begin)
        try:
            yield self.db
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def _drop_if_older_schema(self) -> None:
        """An index written by an older version is a stale cache: dropped, and the next run rebuilds it."""
        # Read and drop in one write transaction: two servers may start at once.
        with self._transaction("BEGIN IMMEDIATE") as db:
            try:
                row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            except sqlite3.OperationalError:  # a new file: no tables yet
                row = ("new",)
            stored = row[0] if row else "0"
            if stored.isdigit() and int(stored) > SCHEMA_VERSION:
                raise IndexVersionError(
                    f"the index {self.path} was written by a newer docs-mcp (index schema {stored}, this version "
                    f"reads {SCHEMA_VERSION}): upgrade docs-mcp, or give this one its own --cache-dir"
                )
            if stored != "new" and stored != str(SCHEMA_VERSION):
                for table in ("sections_fts", "pages_fts", "sections", "pages", "meta"):
                    db.execute(f"DROP TABLE IF EXISTS {table}")

    def _init_rank(self) -> None:
        with self.lock:
            self.db.execute(
                "INSERT INTO sections_fts(sections_fts, rank) VALUES('rank', ?)",
                ("bm25({}, {}, {}, {})".format(*SECTION_WEIGHTS),),
            )
            self.db.execute(
                "INSERT INTO pages_fts(pages_fts, rank) VALUES('rank', ?)",
                ("bm25({}, {}, {}, {})".format(*PAGE_WEIGHTS),),
            )

    def close(self) -> None:
        with self.lock:
            self.db.close()

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
        with self.lock:
            with self._transaction() as db:
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
            self.generation += 1

    def _delete(self, key: str) -> None:
        row = self.db.execute("SELECT id FROM pages WHERE key=?", (key,)).fetchone()
        if not row:
            return
        page_id = row[0]
        self.ranker.forget(page_id)
        self.generation += 1
        self.db.execute(
            "DELETE FROM sections_fts WHERE rowid IN (SELECT id FROM sections WHERE page_id=?)", (page_id,)
        )
        self.db.execute("DELETE FROM sections WHERE page_id=?", (page_id,))
        self.db.execute("DELETE FROM pages_fts WHERE rowid=?", (page_id,))
        self.db.execute("DELETE FROM pages WHERE id=?", (page_id,))

    def remove(self, key: str) -> None:
        with self.lock, self._transaction():
            self._delete(key)

    def touch(self, key: str, fetched_at: float | None = None) -> None:
        """A 304: the stored copy is fresh again."""
        with self.lock:
            self.db.execute("UPDATE pages SET fetched_at=? WHERE key=?", (fetched_at or time.time(), key))

    def set_meta(self, key: str, value: str) -> None:
        with self.lock:
            self.db.execute("INSERT OR REPLACE INTO meta VALUES (?,?)", (key, value))

    # --- reading ---------------------------------------------------------------------------------
    def meta(self, key: str) -> str | None:
        with self.lock:
            row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def page_count(self, source: str | None = None) -> int:
        with self.lock:
            if source:
                return self.db.execute("SELECT count(*) FROM pages WHERE source=?", (source,)).fetchone()[0]
            return self.db.execute("SELECT count(*) FROM pages").fetchone()[0]

    def section_count(self) -> int:
        with self.lock:
            return self.db.execute("SELECT count(*) FROM sections").fetchone()[0]

    def pages(self, source: str) -> list[PageState]:
        with self.lock:
            rows = self.db.execute(
                "SELECT key, fetched_at, etag, last_modified FROM pages WHERE source=?", (source,)
            ).fetchall()
        return [PageState(k, f, e or "", m or "") for k, f, e, m in rows]

    def links(self, key: str) -> list[str]:
        """Links seen on a page when it was last fetched (a 304 does not resend them)."""
        with self.lock:
            row = self.db.execute("SELECT links FROM pages WHERE key=?", (key,)).fetchone()
        return row[0].split("\n") if row and row[0] else []

    def load_document(self, key: str) -> Document | None:
        """The stored converted page, while fresh (no refetch after a restart)."""
        with self.lock:
            row = self.db.execute("SELECT doc, fetched_at FROM pages WHERE key=?", (key,)).fetchone()
        if not row or row[0] is None or time.time() - row[1] > self.fresh_seconds:
            return None
        return Document.from_blob(row[0])

    def headings(self, url: str) -> list[tuple[int, str, str]]:
        key = url.split("#", 1)[0]
        with self.lock:
            rows = self.db.execute(
                "SELECT s.level, s.anchor, s.title FROM sections s JOIN pages p ON p.id=s.page_id "
                "WHERE (p.url=? OR p.key=?) AND s.level>0 ORDER BY s.ord",
                (key, key),
            ).fetchall()
        return [(lv, a, t) for lv, a, t in rows]

    # --- searching (search.py ranks; the index owns the connection and its lock) -----------------
    def search(self, query: str, limit: int, source: str | None = None) -> list[SearchHit]:
        """Pages for a query, best first, each pointing at its best section (see search.SiteRanker)."""
        return self.ranker.search(query, limit, source)

    def warm(self) -> None:
        """Load the term statistics now (the server calls this at start, so the first search is fast)."""
        self.ranker.warm()
