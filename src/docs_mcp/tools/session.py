"""What one MCP session was shown: the spans of each section's markdown sent, by the call that sent them.

A session is a stdio process, an HTTP session id, or (stateless replicas) the `mcp-session-id` a replica
handed out at `initialize`, which the client sends back on every request (transport/recall_ids.py). The
memory is kept per session in a bounded table: in the process (LocalSessions), or in the shared PostgreSQL
index (SharedSessions) so that any replica answers the session's next call knowing what the others sent.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import OrderedDict
from typing import Protocol

from docs_mcp.errors import DocsMCPError
from docs_mcp.model.seen import SESSION_MAX, SESSION_TTL, Seen

log = logging.getLogger("docs_mcp")


def digest(session_id: str) -> str:
    """A session's key in a table: its id hashed, so the table never holds an id that could be replayed."""
    return hashlib.sha256(session_id.encode("utf-8", "replace")).hexdigest()


class Sessions(Protocol):
    """Where sessions' memories are kept between calls."""

    def load(self, key: str) -> Seen: ...
    def save(self, key: str, seen: Seen) -> None: ...


class LocalSessions:
    """Memories in this process: at most `cap` sessions, each forgotten after `ttl` idle seconds."""

    def __init__(self, cap: int = SESSION_MAX, ttl: float = SESSION_TTL):
        self.cap, self.ttl = cap, ttl
        self._table: OrderedDict[str, tuple[float, str]] = OrderedDict()
        self._lock = threading.Lock()

    def load(self, key: str) -> Seen:
        with self._lock:
            found = self._table.get(key)
            if found is None or time.monotonic() - found[0] > self.ttl:
                return Seen()
            return Seen.loads(found[1])

    def save(self, key: str, seen: Seen) -> None:
        now = time.monotonic()
        with self._lock:
            self._table[key] = (now, seen.dumps())
            self._table.move_to_end(key)
            while self._table and (
                len(self._table) > self.cap or now - next(iter(self._table.values()))[0] > self.ttl
            ):
                self._table.popitem(last=False)

    def __len__(self) -> int:
        return len(self._table)


class SessionRows(Protocol):
    """What SharedSessions needs from the shared index (store/postgres/sessions.py)."""

    def session_load(self, key: str, ttl: float) -> str | None: ...
    def session_save(self, key: str, body: str, ttl: float, cap: int) -> None: ...


class SharedSessions:
    """Memories in the shared index: every replica reads and writes the same rows. A database that cannot
    keep them (down, or a role without the grant: docs/deploy.md) leaves calls answered without memory."""

    def __init__(self, rows: SessionRows, cap: int = SESSION_MAX, ttl: float = SESSION_TTL):
        self.rows, self.cap, self.ttl = rows, cap, ttl
        self._said = False

    def load(self, key: str) -> Seen:
        try:
            return Seen.loads(self.rows.session_load(key, self.ttl))
        except DocsMCPError as exc:
            self._say(exc)
            return Seen()

    def save(self, key: str, seen: Seen) -> None:
        try:
            self.rows.session_save(key, seen.dumps(), self.ttl, self.cap)
        except DocsMCPError as exc:
            self._say(exc)

    def _say(self, exc: DocsMCPError) -> None:
        if not self._said:  # once: every call would say it again
            self._said = True
            log.warning("sessions' memories are not kept in the index: %s", exc)
