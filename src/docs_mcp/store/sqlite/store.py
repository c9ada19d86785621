"""The SQLite store: one index file per cache folder, with FTS5, shared by every process using the folder.

Writers take turns (one write transaction at a time, `BEGIN IMMEDIATE`, retried with backoff when another
process holds the lock); readers each have their own connection and read one consistent snapshot per call
(WAL), so a search never waits for a write and never sees half of one. The SQL itself lives in schema.py,
reads.py and writes.py; this module owns the connections, transactions and the errors they raise.
"""

from __future__ import annotations

import contextlib
import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TypeVar

from docs_mcp.deadline import check, passed
from docs_mcp.errors import DiskFull, IndexDamaged, IndexUnavailable, StreamDamaged
from docs_mcp.settings import SQLITE_BUSY_TIMEOUT_MS, WRITE_RETRIES, WRITE_RETRY_DELAY
from docs_mcp.store.catalog import SourceCatalog
from docs_mcp.store.inherited import DelegatedWrites, SnapshotPageReads
from docs_mcp.store.interface import BuildLock, PageState, Scope, key_prefix
from docs_mcp.store.sqlite import catalog, writes
from docs_mcp.store.sqlite.files import disk_full, file_identity, private_dir
from docs_mcp.store.sqlite.healing import Healing
from docs_mcp.store.sqlite.locks import build_lock
from docs_mcp.store.sqlite.reads import SQLiteReads
from docs_mcp.store.sqlite.schema import create_or_upgrade
from docs_mcp.store.sqlite.scoped import OCCURRENCE_TABLES, ScopeStats

if TYPE_CHECKING:
    from docs_mcp.store.pagerows import PreparedPage

__all__ = ["PageState", "Scope", "SiteIndex", "key_prefix"]

T = TypeVar("T")

#: SQLite's result codes for a damaged file, and for a full disk.
_CORRUPT, _NOTADB, _IOERR = 11, 26, 10
#: What SQLite says of a damaged file; tables gone from a file in use mean it was replaced: damaged too.
_DAMAGED = ("malformed", "not a database", "no such table")
_FULL = 13
#: SQLite's code for a statement its progress handler stopped (the call's deadline passed).
_INTERRUPT = 9
#: SQLite instructions between two looks at the deadline (~a millisecond's work or less).
_DEADLINE_STEPS = 10_000


def _busy(exc: sqlite3.Error) -> bool:
    """SQLITE_BUSY or SQLITE_LOCKED: another connection holds the lock (worth a retry)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (5, 6)
    return "locked" in str(exc) or "busy" in str(exc)


class SiteIndex(Healing, SnapshotPageReads, DelegatedWrites, SourceCatalog):
    """The `Store` on one SQLite file per cache directory, shared by every process that uses that directory."""

    _writes = writes  # DelegatedWrites' engine
    _catalog = catalog  # SourceCatalog's

    def __init__(
        self,
        path: Path,
        fresh_seconds: float = 7 * 86400,
        busy_ms: int = SQLITE_BUSY_TIMEOUT_MS,
        retries: int = WRITE_RETRIES,
    ):
        self.path = path
        self.location = str(path)
        self.fresh_seconds = fresh_seconds
        self.busy_ms, self.retries = busy_ms, retries
        try:
            private_dir(path.parent)
        except OSError as exc:
            raise IndexUnavailable(
                f"cannot create the cache dir {path.parent}: {exc.strerror or exc}"
            ) from None
        # Reentrant: a write that finds the file damaged heals it, and healing swaps the writer under this lock.
        self._write_lock = threading.RLock()
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        #: Shared by every snapshot: each scope's ranking statistics per connection and version (SQLiteReads._stats).
        self._scope_memo: dict[tuple[int, int, Scope], ScopeStats] = {}
        #: Told (with a one-line notice) when a file found damaged while in use was replaced by a new one.
        self.on_heal: Callable[[str], None] | None = None
        self._opened = False
        self._heal_lock = threading.Lock()
        self._healed_at, self._heal_notice = -1e9, ""
        self.db = self._connect()  # the writer's connection (readers get their own, per thread)
        try:
            self._retry(self._init_schema)
        except BaseException:
            self.db.close()
            raise
        self._opened = True

    # --- connections ------------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        try:
            # Created 0600 before SQLite opens it: its -wal and -shm files then take the same mode. Only when
            # missing: closing any descriptor of the file drops every POSIX lock this process holds on it, its
            # other connections' too; another process closing its last connection then took itself for the
            # last one, deleted the WAL and its -shm, and this process's readers saw no later write.
            with contextlib.suppress(FileExistsError):
                os.close(os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600))
            db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
            db.execute(f"PRAGMA busy_timeout={int(self.busy_ms)}")
        except (sqlite3.Error, OSError) as exc:
            raise IndexUnavailable(f"cannot open the site index {self.path}: {exc}") from None
        return db

    def _raise(self, exc: sqlite3.Error) -> NoReturn:
        """Raise what a failed SQLite call means here: a damaged file, an index that cannot be used
        (unwritable, locked for too long), or a bug, raised as it is."""
        code = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF
        if code == _INTERRUPT:
            check("reading the site index")  # stopped at the call's deadline: said as the deadline
        if code in (_CORRUPT, _NOTADB, _IOERR) or any(words in str(exc) for words in _DAMAGED):
            if not self._opened:  # found while opening: open_index moves it aside and says so
                raise IndexDamaged(f"the site index {self.path} is damaged: {exc}") from None
            raise IndexDamaged(self._heal(str(exc))) from None
        if code == _FULL or "disk is full" in str(exc):
            raise DiskFull(disk_full(self.path)) from None
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
            create_or_upgrade(db, self.path)
        self._file = file_identity(self.path)  # to notice it deleted or replaced while in use

    def _reads(self) -> SQLiteReads:
        """This thread's reads, on its own read connection (opened on first use)."""
        reads = getattr(self._local, "reads", None)
        if reads is None:
            with self._heal_lock:  # not while a heal swaps the file: a new one has no tables until it is done
                db = self._connect()
            try:
                for statement in OCCURRENCE_TABLES:  # temporary: made before the connection turns query-only
                    db.execute(statement)
            except sqlite3.Error:
                db.close()  # a damaged file: reading() says so (and heals), no connection left behind
                raise
            db.execute("PRAGMA query_only=1")
            # A query still running when its call's deadline passes stops there (a thread cannot be cancelled).
            db.set_progress_handler(passed, _DEADLINE_STEPS)
            reads = self._local.reads = SQLiteReads(db, self.fresh_seconds, self._scope_memo)
            with self._readers_lock:
                self._readers.append(db)
        return reads

    @contextmanager
    def reading(self) -> Iterator[SQLiteReads]:
        """One consistent snapshot for a block of reads, on this thread's own connection (never waits on a
        writer). Nested blocks share the outer snapshot."""
        try:
            reads = self._reads()
        except sqlite3.Error as exc:  # its first statements read the file (the scoped statistics' tables)
            self._raise(exc)
        db = reads.db
        if db.in_transaction:
            yield reads
            return
        if file_identity(self.path) != self._file:
            reads = self._follow_file()
            db = reads.db
        try:
            db.execute("BEGIN")
            try:
                yield reads
            finally:
                db.execute("COMMIT")  # ends the snapshot (a read transaction has nothing to commit)
        except sqlite3.Error as exc:
            self._raise(exc)
        except (
            StreamDamaged
        ) as exc:  # a page's texts cannot be read, nor the page rewritten (writes.delete_page)
            raise IndexDamaged(self._heal(str(exc))) from None

    def close(self) -> None:
        with self._write_lock:
            self.db.close()
        with self._readers_lock:
            for db in self._readers:
                db.close()
            self._readers.clear()

    def build_lock(self, root: str) -> BuildLock:
        """The lock one build of `root` holds, so concurrent runs take turns instead of crawling together."""
        return build_lock(self.path, root)

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
            # SQLite may have rolled back already (disk full, I/O error): the cause is what to report.
            with suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            raise

    def write_transaction(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run `work` in a write transaction: one writer per process at a time, retried across processes."""

        def attempt() -> T:
            with self._transaction() as db:
                done = work(db)
                writes.new_generation(db)  # cached search results of the old generation are not used again
                return done

        with self._write_lock:
            try:
                return self._retry(attempt)
            except StreamDamaged as exc:  # rewriting a page reads its old texts (to take them out of the FTS)
                raise IndexDamaged(self._heal(str(exc))) from None

    def write(self, page: PreparedPage) -> None:
        """Insert or replace a prepared page with its sections; only SQL runs under the lock."""
        self.write_transaction(lambda db: writes.insert_page(db, page))

    def write_many(self, pages: Sequence[PreparedPage]) -> None:
        """Several pages in one transaction (all or none): one commit, and one full-text segment, for all."""
        self.write_transaction(lambda db: writes.insert_pages(db, pages))

    def remove(self, key: str) -> None:
        self.write_transaction(lambda db: writes.delete_page(db, key))
