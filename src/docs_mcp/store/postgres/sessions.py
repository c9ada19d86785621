"""The rows of MCP sessions' memories (tools/session.py): what each session was sent, shared by the replicas.

A row per session, keyed by a hash of its id; rows idle past the time-to-live, and the least recently used past
the cap, are deleted as rows are written, so the table stays bounded whatever the clients do.
"""

from __future__ import annotations

import psycopg

#: Migration 11: the table and the index its clean-up reads.
SESSION_MIGRATION = """
CREATE TABLE session_memory(key text PRIMARY KEY, body text NOT NULL, touched double precision NOT NULL);
CREATE INDEX session_memory_touched ON session_memory(touched);
"""


def load(conn: psycopg.Connection, key: str, since: float) -> str | None:
    """A session's memory, if it was written after `since`."""
    row = conn.execute(
        "SELECT body FROM session_memory WHERE key = %s AND touched > %s", (key, since)
    ).fetchone()
    return row[0] if row else None


def save(conn: psycopg.Connection, key: str, body: str, now: float, ttl: float, cap: int) -> None:
    """Write a session's memory; forget the sessions idle past `ttl` and those past the `cap` newest."""
    conn.execute(
        "INSERT INTO session_memory VALUES (%s, %s, %s) "
        "ON CONFLICT (key) DO UPDATE SET body = EXCLUDED.body, touched = EXCLUDED.touched",
        (key, body, now),
    )
    conn.execute("DELETE FROM session_memory WHERE touched < %s", (now - ttl,))
    conn.execute(
        "DELETE FROM session_memory WHERE touched < ("
        "SELECT touched FROM session_memory ORDER BY touched DESC OFFSET %s LIMIT 1)",
        (cap - 1,),
    )
