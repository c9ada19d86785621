"""The PostgreSQL store: one connection pool per process, a snapshot per read block, a short transaction per
write, and build locks held as session advisory locks (dropped by the server when their connection dies)."""

from __future__ import annotations

import contextlib
import logging
import os
import random
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, TypeVar

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from docs_mcp.deadline import check, remaining
from docs_mcp.errors import IndexUnavailable
from docs_mcp.settings import PG_POOL_SIZE, PG_POOL_TIMEOUT, WRITE_RETRIES, WRITE_RETRY_DELAY
from docs_mcp.store.catalog import SourceCatalog
from docs_mcp.store.inherited import DelegatedWrites, SnapshotPageReads
from docs_mcp.store.postgres import bundles, catalog, schema, sessions, writes
from docs_mcp.store.postgres.address import Address
from docs_mcp.store.postgres.breaker import RETRY, Breaker
from docs_mcp.store.postgres.causes import Cause, cause_of
from docs_mcp.store.postgres.locks import AdvisoryBuildLock
from docs_mcp.store.postgres.reads import PostgresReads
from docs_mcp.store.postgres.schema import SCHEMA_VERSION
from docs_mcp.store.postgres.upkeep import Upkeep

if TYPE_CHECKING:
    from docs_mcp.store.pagerows import PreparedPage

T = TypeVar("T")
# The pool warns at every failed reconnection while the database is down (each second or so): a replica
# says it once per call instead ("index unavailable", /readyz 503 with the reason).
logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
#: Seconds the pool keeps retrying a lost connection (after 1 s, then 2 s: its backoff doubles) before it gives
#: up and connects again on the next call's demand, at once. Its default, 5 minutes of doubling delays, left
#: a replica failing for 8 s and more after a database that had been down 10 s came back.
_RECONNECT_WINDOW = 2.0


class PostgresStore(SnapshotPageReads, DelegatedWrites, SourceCatalog):
    """The `Store` on a PostgreSQL database shared by a team's crawl job and its server replicas."""

    _writes = writes  # DelegatedWrites' engine
    _catalog = catalog  # SourceCatalog's

    def __init__(
        self,
        url: str,
        fresh_seconds: float = 7 * 86400,
        pool_size: int = PG_POOL_SIZE,
        lazy: bool = False,
        migrate: bool = False,
    ):
        """`lazy` (a server replica): start even while the database is down; calls fail as "index
        unavailable" until it answers, then the schema is checked and everything works without a restart.
        An address libpq cannot read as written is IndexUnavailable at once (address.py). `migrate` (`docslice
        migrate` alone): bring the schema to this version instead of refusing another."""
        self.address = Address.parse(url)
        self.url, self.location = url, self.address.shown
        self.fresh_seconds = fresh_seconds
        self._local = threading.local()
        #: Shared by the snapshots' rankings: each scope's full-text totals per state of the index (rank.py).
        self._totals_memo: dict = {}
        self._checked = False
        self._migrate = migrate
        #: (schema found, schema now) once `migrate` ran.
        self.migrated: tuple[int, int] | None = None
        name = f"docslice pid {os.getpid()} on {socket.gethostname()}"[:63]
        self.pool = ConnectionPool(
            url,
            min_size=1,
            max_size=max(1, pool_size),
            kwargs={"autocommit": True, "application_name": name},
            timeout=PG_POOL_TIMEOUT,
            reconnect_timeout=_RECONNECT_WINDOW,
            open=False,
            name="docslice",
        )
        self._upkeep = Upkeep(
            self.connection, lambda ids: self.write_transaction(lambda db: bundles.merge(db, ids))
        )
        self.breaker = Breaker(self.location, self._probe, lambda exc: _scrubbed(cause_of(exc), self.address))
        if lazy:
            self.pool.open(wait=False)
            return
        try:
            self.pool.open(wait=True, timeout=PG_POOL_TIMEOUT)
            self._ready()
        except BaseException:
            self.pool.close()
            raise

    def _ready(self) -> None:
        """The schema's version checked once, on first use (or migrated, by `docslice migrate`). No lock
        here: migrate() takes the database's own, and a caller never waits behind another one's wait."""
        self.breaker.check()  # known to be down: the same error at once, not another wait for a connection
        if self._checked:
            return
        with self._errors(), self.connection() as conn:
            if self._migrate:
                self.migrated = schema.migrate(conn, self.location)
            else:
                schema.check(conn, self.location)
        self._checked = True

    def _errors(self, retry: bool = False) -> contextlib.AbstractContextManager[None]:
        """Database errors as IndexUnavailable, said plainly; one that means the database cannot be reached
        trips the breaker (breaker.py). `retry`: a deadlock's victim is left to the caller, who tries again."""
        return self.breaker.errors(retry)

    def _probe(self) -> None:
        with psycopg.connect(self.url, connect_timeout=2, autocommit=True) as conn:
            conn.execute("SELECT 1")

    def checkout(self, first: str = "") -> psycopg.Connection:
        """A pooled connection that answers (give it back with `pool.putconn`), `first` run on it. A database
        restarted while this process was idle broke every idle connection: the first one found broken sends
        all of them to be replaced at once and the call waits for a new one, instead of failing (the pool's
        own check waits 1 s, then 2, … per broken connection: 5 s and a failed call with 4 idle ones). The
        check is `first` itself (a snapshot's BEGIN): a separate empty query cost every call a round trip."""
        conn = self.pool.getconn()
        try:
            conn.execute(first)
            return conn
        except psycopg.Error:
            self.pool.putconn(conn)  # broken: the pool closes it and opens another
        except BaseException:
            self.pool.putconn(conn)
            raise
        self.pool.check()  # the other idle connections, broken by the same restart
        conn = self.pool.getconn()
        try:
            conn.execute(first)
        except BaseException:
            self.pool.putconn(conn)
            raise
        return conn

    @contextmanager
    def connection(self, first: str = "") -> Iterator[psycopg.Connection]:
        """A pooled connection that answers, `first` run on it, for a block (see checkout)."""
        conn = self.checkout(first)
        try:
            yield conn
        finally:
            self.pool.putconn(conn)

    @contextmanager
    def reading(self) -> Iterator[PostgresReads]:
        """One consistent snapshot (REPEATABLE READ, read only) for a block of reads; never waits on a writer.
        Nested blocks share the outer snapshot."""
        outer = getattr(self._local, "reads", None)
        if outer is not None:
            yield outer
            return
        self._ready()
        begin = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
        left = remaining()
        if left is not None:  # a statement still running at the call's deadline stops there (same round trip)
            # Rounded up: a timeout a fraction of a millisecond short cancels before the deadline has passed.
            begin += f"; SET LOCAL statement_timeout = {int(left * 1000) + 1}"
        with self._errors(), self.connection(begin) as conn:
            self._local.reads = PostgresReads(conn, self.fresh_seconds, self._totals_memo)
            try:
                yield self._local.reads
            except psycopg.errors.QueryCanceled:
                check("reading the site index")  # said as the deadline, not as an unusable index
                raise
            finally:
                self._local.reads = None
                with contextlib.suppress(psycopg.Error):  # a connection lost meanwhile has no transaction
                    conn.execute("ROLLBACK")

    def close(self) -> None:
        self.breaker.close()
        self.pool.close()

    def build_lock(self, root: str) -> AdvisoryBuildLock:
        """The lock one build of `root` holds, whichever machine runs it."""
        return AdvisoryBuildLock(self, root)

    # --- writing ---------------------------------------------------------------------------------
    def write_transaction(self, work: Callable[[psycopg.Connection], T], index: bool = True) -> T:
        """Run `work` in one short transaction, again after a pause if the server chose it as a deadlock's victim.
        `index`: it changes what searches find, so it starts a new generation (a session's memory does not)."""
        self._ready()
        delay = WRITE_RETRY_DELAY
        for attempt in range(WRITE_RETRIES + 1):
            try:
                with (
                    self._errors(retry=attempt < WRITE_RETRIES),
                    self.connection() as conn,
                    conn.transaction(),
                ):
                    done = work(conn)
                    if index:
                        writes.new_generation(conn)  # cached results of the old generation are not used again
                    return done
            except RETRY:
                pass
            time.sleep(delay * (1 + random.random()))
            delay *= 2
        raise AssertionError("unreachable")

    def write(self, page: PreparedPage) -> None:
        self._upkeep.wrote(self.write_transaction(lambda db: writes.insert_pages(db, [page])), 1)

    def write_many(self, pages: Sequence[PreparedPage]) -> None:
        """The pages in one transaction, all or none (a build writes what its workers finished meanwhile)."""
        self._upkeep.wrote(self.write_transaction(lambda db: writes.insert_pages(db, pages)), len(pages))

    def remove(self, key: str) -> None:
        self._upkeep.rewrote(self.write_transaction(lambda db: writes.delete_page(db, key)))
        self._upkeep.changed_pages(1)

    # --- sessions' memories (tools/session.py) ----------------------------------------------------------
    def session_load(self, key: str, ttl: float) -> str | None:
        self._ready()
        with self._errors(), self.connection() as conn:
            return sessions.load(conn, key, time.time() - ttl)

    def session_save(self, key: str, body: str, ttl: float, cap: int) -> None:
        # Not a new generation: each call's save would void every replica's cached results and counts.
        self.write_transaction(lambda db: sessions.save(db, key, body, time.time(), ttl, cap), index=False)


def open_postgres(url: str, fresh_seconds: float, lazy: bool = False, migrate: bool = False) -> PostgresStore:
    """The store at `url`, its schema checked (`migrate`: migrated); IndexUnavailable when it cannot be
    reached (`lazy`: opened anyway, for a server that must come up before its database)."""
    if lazy:
        return PostgresStore(url, fresh_seconds, lazy=True)
    address = Address.parse(url)
    try:
        # One plain connection first: the server's own reason (refused, no such database, password) when it
        # cannot be reached, not the pool's timeout.
        psycopg.connect(url, connect_timeout=int(PG_POOL_TIMEOUT)).close()
        return PostgresStore(url, fresh_seconds, migrate=migrate)
    except psycopg.OperationalError as exc:
        raise IndexUnavailable(
            f"cannot use the index at {address.shown}: {_scrubbed(cause_of(exc), address).text}"
        ) from None
    except PoolTimeout:
        raise IndexUnavailable(
            f"cannot use the index at {address.shown}: no connection within {PG_POOL_TIMEOUT:g} s"
        ) from None


def _scrubbed(cause: Cause, address: Address) -> Cause:
    """The cause with every secret of the address masked (the server's words may quote it)."""
    return Cause(address.scrub(cause.text), cause.lasting)


def migrate_postgres(url: str) -> str:
    """`docslice migrate`: the schema at `url` brought to this version; the line that says what it did."""
    began = time.monotonic()
    store = open_postgres(url, 0.0, migrate=True)
    store.close()
    found, now = store.migrated or (SCHEMA_VERSION, SCHEMA_VERSION)
    if found == now:
        return f"the index at {store.location} is at schema {now} already: nothing to migrate"
    took = time.monotonic() - began
    return f"migrated the index at {store.location} from schema {found} to {now} in {took:.1f} s"
