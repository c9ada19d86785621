"""The PostgreSQL build lock: a session advisory lock on a connection of its own, held for one build of a
root across machines, dropped by the server when the holder's connection or process dies, and by a restart
of the server (then taken again, or given up to the build that took it meanwhile: see held)."""

from __future__ import annotations

import contextlib
import hashlib
from typing import Any

import psycopg

from docs_mcp.errors import IndexUnavailable


class AdvisoryBuildLock:
    """One build of a root at a time across machines: a session advisory lock on a connection of its own,
    held for the build and dropped by the server if the holder's connection or process dies."""

    def __init__(self, store: Any, root: str):  # a PostgresStore (store.py imports this module)
        self.store = store
        self.key = int.from_bytes(
            hashlib.sha1(root.encode("utf-8", "surrogatepass")).digest()[:8], "big", signed=True
        )
        self._conn: psycopg.Connection | None = None

    def try_acquire(self) -> bool:
        """Take the lock if free, on a connection kept for the build (given back to the pool otherwise, and
        on every error: a failed try never keeps a connection)."""
        if self._conn is not None:
            return True
        with self.store._errors():
            conn = self.store.checkout()
            try:
                got = conn.execute("SELECT pg_try_advisory_lock(%s)", (self.key,)).fetchone()[0]
            except BaseException:
                self.store.pool.putconn(conn)
                raise
        if got:
            self._conn = conn
        else:
            self.store.pool.putconn(conn)
        return bool(got)

    def holder(self) -> str:
        """Who holds the lock: "N on HOST" from its application name (and its address), "" if unknown."""
        sql = (
            "SELECT a.application_name, a.client_addr FROM pg_locks l JOIN pg_stat_activity a ON a.pid=l.pid "
            "WHERE l.locktype='advisory' AND l.granted AND l.objid=(%s::bigint & 4294967295)::oid "
            "AND l.classid=((%s::bigint >> 32) & 4294967295)::oid LIMIT 1"
        )
        with self.store.reading() as r:
            row = r.db.execute(sql, (self.key, self.key)).fetchone()
        if not row:
            return ""
        # Messages say "pid {holder}": "123 on build-host (10.0.0.5)".
        return row[0].removeprefix("docslice pid ") + (f" ({row[1]})" if row[1] else "")

    def held(self) -> bool:
        """Still ours? A database restart (or a killed session) drops the lock with its connection: then it is
        taken again on a new one if it is free; False when another job took it meanwhile, or none can."""
        conn = self._conn
        if conn is None:
            return False
        try:
            conn.execute("SELECT 1")
            return True
        except psycopg.Error:
            self._conn = None
            self.store.pool.putconn(conn)  # broken: the pool drops it
        try:
            return self.try_acquire()
        except IndexUnavailable:
            return False

    def release(self) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        with contextlib.suppress(psycopg.Error):  # a lost connection has lost its lock too
            conn.execute("SELECT pg_advisory_unlock(%s)", (self.key,))
        self.store.pool.putconn(conn)
