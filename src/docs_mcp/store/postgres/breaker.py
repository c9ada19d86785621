"""Database errors said plainly, and a circuit breaker: the call that finds the database unreachable waits for
the connection timeout and trips the breaker; every call after it fails at once with the same error until a
background probe connects again. One log line when the store is lost (its cause: causes.py), one when the
cause changes, one when it is back (with the time since the first call that failed)."""

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
from docs_mcp.store.postgres.causes import Cause

log = logging.getLogger("docs_mcp")
#: Seconds between two probes while the store is down: the first good call comes at most this long after
#: the database answers again.
PROBE_INTERVAL = 0.5
#: Seconds between two probes while a lasting cause (a wrong password, no such role) stops it: someone must act,
#: and each probe is a failed login in the server's log.
LASTING_PROBE_INTERVAL = 5.0
#: Worth another try: the server chose this transaction as a deadlock's victim, or a serialization failure.
RETRY = (psycopg.errors.DeadlockDetected, psycopg.errors.SerializationFailure)


def transient(exc: psycopg.Error) -> bool:
    """Whether an error means the database cannot be reached or used at all (its connection failed, lost or
    refused, the server shutting down or starting, too many connections): the breaker trips; not a limit of
    the data (a value too long, a disk full) nor a statement refused (permission denied)."""
    state = exc.sqlstate or ""
    return not state or state.startswith(("08", "57P")) or state == "53300"


class Breaker:
    """The store as its calls found it: up (closed), or down since a moment, with the error that said so."""

    def __init__(self, location: str, probe: Callable[[], None], cause: Callable[[psycopg.Error], Cause]):
        self.location = location
        #: An error's cause for people, the address's password masked in the server's words (libpq may quote it).
        self.cause = cause
        #: Connects and asks the database one question; raises while it cannot.
        self.probe = probe
        self._lock = threading.Lock()
        #: While down: (time.monotonic() when the first failing call began, its message, whether it lasts).
        self._down: tuple[float, str, bool] | None = None
        self._closed = threading.Event()

    def check(self) -> None:
        """Raise the outage's error at once while the store is known to be down."""
        down = self._down
        if down is not None:
            raise IndexUnavailable(down[1])

    @contextmanager
    def errors(self, retry: bool = False) -> Iterator[None]:
        """A database that cannot be reached (down, restarting, refusing us: the breaker trips) or that fails a
        statement is an unavailable index, its cause said in one line; `retry`: a deadlock's victim is left to
        the caller."""
        where = f"cannot use the index at {self.location}"
        began = time.monotonic()
        try:
            yield
        except RETRY:
            if not retry:
                raise IndexUnavailable(f"{where}: the write kept colliding with others, try again") from None
            raise
        except PoolTimeout:
            cause = self._why_no_connection()
            if cause is None:
                raise IndexUnavailable(
                    f"{where}: every connection of this process stayed busy for {PG_POOL_TIMEOUT:g} s (the "
                    "database answers): more replicas, or a larger DOCSLICE_PG_POOL_SIZE"
                ) from None
            raise self._lost(f"{where}: {cause.text}", began, cause.lasting) from None
        except psycopg.Error as exc:
            cause = self.cause(exc)
            if isinstance(exc, psycopg.OperationalError) and transient(exc):
                raise self._lost(f"{where}: {cause.text}", began, cause.lasting) from None
            raise IndexUnavailable(f"{where}: {cause.text}") from None

    def _why_no_connection(self) -> Cause | None:
        """Why the pool gave no connection in time, from a connection of our own (the pool keeps its
        reasons to itself): None when that one works (this process's connections were all busy)."""
        try:
            self.probe()
        except psycopg.Error as exc:
            return self.cause(exc)
        return None

    def _lost(self, message: str, began: float, lasting: bool) -> IndexUnavailable:
        """The store could not be reached: fail the calls after this one at once, and probe it meanwhile."""
        with self._lock:
            if self._down is not None or self._closed.is_set():
                return IndexUnavailable(self._down[1] if self._down else message)
            self._down = (began, message, lasting)
        log.warning("%s (calls fail at once until %s)", message, "that is fixed" if lasting else "it answers")
        threading.Thread(target=self._watch, name="docslice-store-probe", daemon=True).start()
        return IndexUnavailable(message)

    def _watch(self) -> None:
        while self._down is not None and not self._closed.wait(
            LASTING_PROBE_INTERVAL if self._down[2] else PROBE_INTERVAL
        ):
            try:
                self.probe()
            except psycopg.Error as exc:  # still down: the calls say the cause as it is now
                self._still_down(self.cause(exc))
                continue
            except Exception:
                continue
            with self._lock:
                since = self._down[0] if self._down else time.monotonic()
                self._down = None
            log.warning("the index at %s is back after %.1f s", self.location, time.monotonic() - since)
            return

    def _still_down(self, cause: Cause) -> None:
        """A probe failed: the outage's message follows its cause (a restart that comes back refusing the
        password is said as such), one log line when the cause changes."""
        message = f"cannot use the index at {self.location}: {cause.text}"
        with self._lock:
            if self._down is None or self._down[1] == message:
                return
            self._down = (self._down[0], message, cause.lasting)
        log.warning(
            "%s (calls fail at once until %s)", message, "that is fixed" if cause.lasting else "it answers"
        )

    def close(self) -> None:
        self._closed.set()
