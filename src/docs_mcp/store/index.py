"""The persistent site index: pages, sections and converted documents in one SQLite file, with FTS5.

Writers take turns (one write transaction at a time, `BEGIN IMMEDIATE`, retried with backoff when another
process holds the lock); readers each have their own connection and read one consistent snapshot per call
(WAL), so a search never waits for a write and never sees half of one.
"""

from __future__ import annotations

import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TypeVar

from docs_mcp.convert.render import render_section
from docs_mcp.errors import IndexDamaged, IndexUnavailable, IndexVersionError
from docs_mcp.model.document import Document
from docs_mcp.settings import (
    PAGE_WEIGHTS,
    SECTION_WEIGHTS,
    SQLITE_BUSY_TIMEOUT_MS,
    WRITE_RETRIES,
    WRITE_RETRY_DELAY,
)
from docs_mcp.store.pagerows import TOTAL, PreparedPage, term_counts

if TYPE_CHECKING:
    from docs_mcp.fetch.sources import Source

T = TypeVar("T")

#: Bumped whenever stored rows or the conversion behind stored pages change. 4: Django/Node.js/MkDocs-Bootstrap
#: containers, rustdoc sections and noise, plain signatures, a redirected address indexed at its final
#: address. 5: stored pages keep their units (anchors, definition entries, defined names, code size) and
#: code notes; sections are split from text without code. 6: pages keyed by address alone (the source is
#: whichever configured root holds it, named at read time); page ids never reused; a `vocab` table of
#: document frequencies kept up to date by every write; a page's stored document, links and terms in
#: `page_data`, so `pages` rows stay small for joins; generated listings (`_modules/`, `genindex`,
#: `search.html`, …) unlisted. 7: `page_vectors`, a listed page's section vectors (the `semantic` extra).
SCHEMA_VERSION = 7
_TABLES = ("sections_fts", "pages_fts", "sections", "page_data", "page_vectors", "pages", "vocab", "meta")
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS pages(
    id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE, title TEXT NOT NULL,
    fetched_at REAL NOT NULL, etag TEXT, last_modified TEXT, hash TEXT, listed INTEGER NOT NULL DEFAULT 1);
CREATE TABLE IF NOT EXISTS page_data(id INTEGER PRIMARY KEY, links TEXT, terms BLOB, doc BLOB);
CREATE TABLE IF NOT EXISTS sections(
    id INTEGER PRIMARY KEY, page_id INTEGER NOT NULL, ord INTEGER NOT NULL, anchor TEXT NOT NULL,
    level INTEGER NOT NULL, title TEXT NOT NULL, path TEXT NOT NULL, text TEXT NOT NULL,
    names TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS sections_page ON sections(page_id);
CREATE VIRTUAL TABLE IF NOT EXISTS sections_fts USING fts5(title, path, body, names, tokenize='unicode61');
CREATE VIRTUAL TABLE IF NOT EXISTS pages_fts USING fts5(title, headings, body, names, tokenize='unicode61');
CREATE TABLE IF NOT EXISTS page_vectors(id INTEGER PRIMARY KEY, model TEXT NOT NULL, vecs BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS vocab(term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;
INSERT OR IGNORE INTO meta VALUES ('schema', '{SCHEMA_VERSION}');
INSERT OR IGNORE INTO vocab VALUES ('', 0);
INSERT INTO sections_fts(sections_fts, rank) VALUES('rank', 'bm25({", ".join(map(str, SECTION_WEIGHTS))})');
INSERT INTO pages_fts(pages_fts, rank) VALUES('rank', 'bm25({", ".join(map(str, PAGE_WEIGHTS))})');
"""
#: SQLite's result codes for a damaged file.
_CORRUPT, _NOTADB = 11, 26
#: Above every character: `prefix <= key < prefix + _TOP` holds exactly the keys that start with prefix.
_TOP = "\U0010ffff"


@dataclass(frozen=True)
class PageState:
    """What a refresh needs to know about an indexed page."""

    key: str
    fetched_at: float
    etag: str
    last_modified: str


@dataclass(frozen=True)
class Scope:
    """The pages a server may show: those whose key lies under one of its sources' roots."""

    prefixes: tuple[str, ...]

    @classmethod
    def of(cls, sources: Iterable[Source]) -> Scope:
        return cls(tuple(key_prefix(s) for s in sources))

    def sql(self, column: str = "p.key") -> tuple[str, list[str]]:
        """A WHERE condition on `column` and its parameters (key ranges, so the key index serves it)."""
        if not self.prefixes:
            return "0", []
        parts, args = [], []
        for prefix in self.prefixes:
            parts.append(f"({column} >= ? AND {column} < ?)")
            args += [prefix, prefix + _TOP]
        return "(" + " OR ".join(parts) + ")", args


def key_prefix(source: Source) -> str:
    """What the key of every page of a source starts with: its root URL, or its folder and a separator."""
    return source.root if not source.is_local else source.root.rstrip(os.sep) + os.sep


def _busy(exc: sqlite3.Error) -> bool:
    """SQLITE_BUSY or SQLITE_LOCKED: another connection holds the lock (worth a retry)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (5, 6)
    return "locked" in str(exc) or "busy" in str(exc)


class SiteIndex:
    """One SQLite file per cache directory, shared by every process that uses that directory."""

    def __init__(
        self,
        path: Path,
        fresh_seconds: float = 7 * 86400,
        busy_ms: int = SQLITE_BUSY_TIMEOUT_MS,
        retries: int = WRITE_RETRIES,
    ):
        self.path = path
        self.fresh_seconds = fresh_seconds
        self.busy_ms, self.retries = busy_ms, retries
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise IndexUnavailable(
                f"cannot create the cache dir {path.parent}: {exc.strerror or exc}"
            ) from None
        self._write_lock = threading.Lock()
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        self.db = self._connect()  # the writer's connection (readers get their own, per thread)
        try:
            self._retry(self._init_schema)
        except BaseException:
            self.db.close()
            raise

    # --- connections ------------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        try:
            db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
            db.execute(f"PRAGMA busy_timeout={int(self.busy_ms)}")
        except sqlite3.Error as exc:
            raise IndexUnavailable(f"cannot open the site index {self.path}: {exc}") from None
        return db

    def _raise(self, exc: sqlite3.Error) -> NoReturn:
        """Raise what a failed SQLite call means here: a damaged file, an index that cannot be used
        (unwritable, locked for too long), or a bug, raised as it is."""
        code = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF
        if code in (_CORRUPT, _NOTADB) or "malformed" in str(exc) or "not a database" in str(exc):
            raise IndexDamaged(f"the site index {self.path} is damaged: {exc}") from None
        if isinstance(exc, sqlite3.OperationalError):
            writable = os.access(self.path.parent, os.W_OK)
            hint = "" if writable else f" (the cache dir {self.path.parent} is not writable)"
            raise IndexUnavailable(f"cannot use the site index {self.path}: {exc}{hint}") from None
        raise exc

    def _retry(self, work: Callable[[], T]) -> T:
        """Run `work`, again after a growing pause while another process holds the write lock."""
        delay = WRITE_RETRY_DELAY
        for attempt in range(self.retries + 1):
            try:
                return work()
            except sqlite3.Error as exc:
                if not _busy(exc) or attempt == self.retries:
                    self._raise(exc)
            time.sleep(delay * (1 + random.random()))
            delay *= 2
        raise AssertionError("unreachable")  # the last attempt raises

    def _init_schema(self) -> None:
        db = self.db
        if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        # Read, drop and create in one write transaction: two servers may start at once.
        with self._transaction():
            try:
                row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            except sqlite3.OperationalError:  # a new file: no tables yet
                row = ("new",)
            stored = row[0] if row else "0"
            if stored.isdigit() and int(stored) > SCHEMA_VERSION:
                raise IndexVersionError(
                    f"the index {self.path} was written by a newer docslice (index schema {stored}, this version "
                    f"reads {SCHEMA_VERSION}): upgrade docslice, or give this one its own --cache-dir"
                )
            if stored != "new" and stored != str(SCHEMA_VERSION):
                # An index written by an older version is a stale cache: dropped, and this run rebuilds it.
                for table in _TABLES:
                    db.execute(f"DROP TABLE IF EXISTS {table}")
            for statement in _SCHEMA.split(";\n"):  # executescript would commit the transaction
                if statement.strip():
                    db.execute(statement)

    def _reader(self) -> sqlite3.Connection:
        """This thread's read connection (opened on first use)."""
        db = getattr(self._local, "db", None)
        if db is None:
            db = self._connect()
            db.execute("PRAGMA query_only=1")
            self._local.db = db
            with self._readers_lock:
                self._readers.append(db)
        return db

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """One consistent snapshot for a block of reads, on this thread's own connection (never waits on a
        writer). Nested blocks share the outer snapshot."""
        db = self._reader()
        if db.in_transaction:
            yield db
            return
        try:
            db.execute("BEGIN")
            try:
                yield db
            finally:
                db.execute("COMMIT")  # ends the snapshot (a read transaction has nothing to commit)
        except sqlite3.Error as exc:
            self._raise(exc)

    def close(self) -> None:
        with self._write_lock:
            self.db.close()
        with self._readers_lock:
            for db in self._readers:
                db.close()
            self._readers.clear()

    # --- writing ---------------------------------------------------------------------------------
    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, the write lock taken at BEGIN: committed when the block ends, rolled back
        if it raises. (A deferred BEGIN that reads first cannot wait for the lock: SQLite answers 'locked'.)"""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def write_transaction(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run `work` in a write transaction: one writer per process at a time, retried across processes."""

        def attempt() -> T:
            with self._transaction() as db:
                return work(db)

        with self._write_lock:
            return self._retry(attempt)

    def write(self, page: PreparedPage) -> None:
        """Insert or replace a prepared page with its sections; only SQL runs under the lock."""

        def work(db: sqlite3.Connection) -> None:
            self._delete(db, page.key)
            page_id = db.execute(
                "INSERT INTO pages(key, title, fetched_at, etag, last_modified, hash, listed) VALUES (?,?,?,?,?,?,?)",
                page.row,
            ).lastrowid
            db.execute(
                "INSERT INTO page_data(id, links, terms, doc) VALUES (?,?,?,?)",
                (page_id, page.links, page.terms, page.doc),
            )
            if page.listed:
                db.execute(
                    "INSERT INTO pages_fts(rowid, title, headings, body, names) VALUES (?,?,?,?,?)",
                    (page_id, *page.page_fts),
                )
            for k, row in enumerate(page.sections):
                section_id = db.execute(
                    "INSERT INTO sections(page_id, ord, anchor, level, title, path, text, names) "
                    "VALUES (?,?,?,?,?,?,?,?)",
                    (page_id, *row),
                ).lastrowid
                if page.listed:
                    db.execute(
                        "INSERT INTO sections_fts(rowid, title, path, body, names) VALUES (?,?,?,?,?)",
                        (section_id, *page.section_fts[k]),
                    )
            self._count(db, page.terms, +1)
            if page.vectors:
                db.execute(
                    "INSERT INTO page_vectors(id, model, vecs) VALUES (?,?,?)",
                    (page_id, page.vector_model, page.vectors),
                )

        self.write_transaction(work)

    @staticmethod
    def _count(db: sqlite3.Connection, terms: bytes | None, sign: int) -> None:
        """Add (or take back) a page's terms to the document frequencies: no reload of the vocabulary."""
        counts = term_counts(terms)
        if not counts:
            return
        db.executemany(
            "INSERT INTO vocab(term, df) VALUES (?, ?) ON CONFLICT(term) DO UPDATE SET df = df + excluded.df",
            [(t, sign * n) for t, n in counts.items()],
        )

    def _delete(self, db: sqlite3.Connection, key: str) -> None:
        row = db.execute(
            "SELECT p.id, d.terms FROM pages p LEFT JOIN page_data d ON d.id=p.id WHERE p.key=?", (key,)
        ).fetchone()
        if not row:
            return
        page_id, terms = row
        db.execute(
            "DELETE FROM sections_fts WHERE rowid IN (SELECT id FROM sections WHERE page_id=?)", (page_id,)
        )
        db.execute("DELETE FROM sections WHERE page_id=?", (page_id,))
        db.execute("DELETE FROM pages_fts WHERE rowid=?", (page_id,))
        db.execute("DELETE FROM pages WHERE id=?", (page_id,))
        db.execute("DELETE FROM page_data WHERE id=?", (page_id,))
        db.execute("DELETE FROM page_vectors WHERE id=?", (page_id,))
        self._count(db, terms, -1)

    def remove(self, key: str) -> None:
        self.write_transaction(lambda db: self._delete(db, key))

    def touch(self, key: str, fetched_at: float | None = None) -> None:
        """A 304: the stored copy is fresh again."""
        when = fetched_at or time.time()
        self.write_transaction(
            lambda db: db.execute("UPDATE pages SET fetched_at=? WHERE key=?", (when, key))
        )

    def set_meta(self, key: str, value: str) -> None:
        self.write_transaction(
            lambda db: db.execute("INSERT OR REPLACE INTO meta VALUES (?,?)", (key, value))
        )

    # --- reading ---------------------------------------------------------------------------------
    def meta(self, key: str) -> str | None:
        with self.reading() as db:
            row = db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def page_count(self, scope: Scope | None = None) -> int:
        """Pages in the index, or in a scope (`Scope.of([source])`: one source's pages)."""
        where, args = scope.sql("key") if scope is not None else ("1", [])
        with self.reading() as db:
            return db.execute(f"SELECT count(*) FROM pages WHERE {where}", args).fetchone()[0]

    def section_count(self) -> int:
        with self.reading() as db:
            return db.execute("SELECT count(*) FROM sections").fetchone()[0]

    def newest(self, scope: Scope) -> float:
        """When the most recently fetched (or revalidated) page of a scope was; 0 for none."""
        where, args = scope.sql("key")
        with self.reading() as db:
            return db.execute(f"SELECT max(fetched_at) FROM pages WHERE {where}", args).fetchone()[0] or 0.0

    def pages(self, scope: Scope) -> list[PageState]:
        where, args = scope.sql("key")
        with self.reading() as db:
            rows = db.execute(
                f"SELECT key, fetched_at, etag, last_modified FROM pages WHERE {where}", args
            ).fetchall()
        return [PageState(k, f, e or "", m or "") for k, f, e, m in rows]

    def links(self, key: str) -> list[str]:
        """Links seen on a page when it was last fetched (a 304 does not resend them)."""
        with self.reading() as db:
            row = db.execute(
                "SELECT d.links FROM pages p JOIN page_data d ON d.id=p.id WHERE p.key=?", (key,)
            ).fetchone()
        return row[0].split("\n") if row and row[0] else []

    def load_document(self, key: str) -> Document | None:
        """The stored converted page, while fresh (no refetch after a restart)."""
        with self.reading() as db:
            row = db.execute(
                "SELECT d.doc, p.fetched_at FROM pages p JOIN page_data d ON d.id=p.id WHERE p.key=?", (key,)
            ).fetchone()
        if not row or row[0] is None or time.time() - row[1] > self.fresh_seconds:
            return None
        return Document.from_blob(row[0], render_section)

    def headings(self, key: str) -> list[tuple[int, str, str]]:
        """(level, anchor, title) of a page's headings, in page order."""
        with self.reading() as db:
            rows = db.execute(
                "SELECT s.level, s.anchor, s.title FROM sections s JOIN pages p ON p.id=s.page_id "
                "WHERE p.key=? AND s.level>0 ORDER BY s.ord",
                (key,),
            ).fetchall()
        return [(lv, a, t) for lv, a, t in rows]

    def doc_freq(self, db: sqlite3.Connection, terms: list[str]) -> tuple[dict[str, int], int]:
        """Listed sections holding each term (terms in none are left out), and the number of listed sections."""
        marks = ",".join("?" * (len(terms) + 1))
        rows = dict(
            db.execute(f"SELECT term, df FROM vocab WHERE term IN ({marks})", [TOTAL, *terms]).fetchall()
        )
        total = rows.pop(TOTAL, 0) or 1
        return {t: n for t, n in rows.items() if n > 0}, total
