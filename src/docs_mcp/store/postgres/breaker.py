"""Database errors said plainly, and a circuit breaker: the call that finds the database unreachable waits for
the connection timeout and trips the breaker; every call after it fails at once with the same error until a
background probe connects again. One log line when the store is lost, one when it is back (with the
outage's length)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import psycopg
from psycopg_pool import PoolTimeout

from docs_mcp.errors import IndexUnavailable
from docs_mcp.settings import PG_POOL_TIMEOUT

log = logging.getLogger("docs_mcp")
#: Seconds between two probes while the store is down: the first good call comes at most this long after
#: the database answers again.
PROBE_INTERVAL = 0.5
#: Worth another try: the server chose this transaction as a deadlock's victim, or a serialization failure.
RETRY = (psycopg.errors.DeadlockDetected, psycopg.errors.SerializationFailure)


def transient(exc: psycopg.Error) -> bool:
    """Whether an error may pass by itself: the connection lost or refused, the server shutting down or
    starting, too many connections; not a limit of the data (a value too long, a disk full)."""
    state = exc.sqlstate or ""
    return not state or state.startswith(("08", "57P")) or state == "53300"


def first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


class Breaker:
    """The store as its calls found it: up (closed), or down since a moment, with the error that said so."""

    def __init__(
        self, location: str, probe: Callable[[], None], said: Callable[[BaseException], str] = first_line
    ):
        self.location = location
        #: An error's message for people: its first line, without the address's password (libpq may quote it).
        self.said = said
        #: Connects and asks the database one question; raises while it cannot.
        self.probe = probe
        self._lock = threading.Lock()
        self._down: tuple[float, str] | None = None  # (time.monotonic() when lost, the error's message)
        self._closed = threading.Event()

    def check(self) -> None:
        """Raise the outage's error at once while the store is known to be down."""
        down = self._down
        if down is not None:
            raise IndexUnavailable(down[1])

    @contextmanager
    def errors(self, retry: bool = False) -> Iterator[None]:
        """A database that cannot be reached (down, restarting, refusing us: the breaker trips) or that fails a
        statement is an unavailable index, said plainly; `retry`: a deadlock's victim is left to the caller."""
        where = f"cannot use the index at {self.location}"
        try:
            yield
        except RETRY:
            if not retry:
                raise IndexUnavailable(f"{where}: the write kept colliding with others, try again") from None
            raise
        except PoolTimeout:
            raise self._lost(
                f"{where}: no connection to it within {PG_POOL_TIMEOUT:g} s (the database is down, restarting or "
                "out of connections)"
            ) from None
        except psycopg.OperationalError as exc:
            if transient(exc):
                hint = " (the database is down or restarting: retry in a few seconds)"
                raise self._lost(f"{where}: {self.said(exc)}{hint}") from None
            raise IndexUnavailable(f"{where}: {self.said(exc)}") from None
        except psycopg.Error as exc:
            raise IndexUnavailable(f"{where}: {self.said(exc)}") from None

    def _lost(self, message: str) -> IndexUnavailable:
        """The store could not be reached: fail the calls after this one at once, and probe it meanwhile."""
        with self._lock:
            if self._down is not None or self._closed.is_set():
                return IndexUnavailable(self._down[1] if self._down else message)
            self._down = (time.monotonic(), message)
        log.warning("%s; calls fail at once until it answers again", message)
        threading.Thread(target=self._watch, name="docslice-store-probe", daemon=True).start()
        return IndexUnavailable(message)

    def _watch(self) -> None:
        while not self._closed.wait(PROBE_INTERVAL):
            try:
                self.probe()
            except Exception:  # still down: whatever the reason now, the calls keep saying the first one
                continue
            with self._lock:
                since = self._down[0] if self._down else time.monotonic()
                self._down = None
            log.warning("the index at %s is back after %.1f s", self.location, time.monotonic() - since)
            return

    def close(self) -> None:
        self._closed.set()
