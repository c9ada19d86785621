"""The SQLite index healed while in use: a damaged or deleted file is moved aside and a new one started in its
place; a file another process put in its place is taken up. No connection another thread may be using is
closed here (closing one under a reader crashed the process, SIGSEGV): the writer's is swapped under the
write lock, which only its users take; the readers' are dropped from their threads, each closing when its
last user lets go of it, and each thread's next read opens one on the new file."""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING

from docs_mcp.errors import IndexDamaged
from docs_mcp.store.sqlite.files import file_identity, move_aside

if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable
    from pathlib import Path

    from docs_mcp.store.sqlite.reads import SQLiteReads

#: Calls failing on one damaged file within this many seconds are one damage: the file is moved aside once.
HEAL_DEDUP_SECONDS = 2.0


class Healing:
    """What SiteIndex does when its file is damaged, deleted or replaced under it."""

    path: Path
    db: sqlite3.Connection
    on_heal: Callable[[str], None] | None
    _write_lock: threading.RLock
    _heal_lock: threading.Lock
    _readers_lock: threading.Lock
    _readers: list[sqlite3.Connection]
    _local: threading.local
    _scope_memo: dict
    _file: tuple[int, int] | None
    _healed_at: float
    _heal_notice: str

    def _connect(self) -> sqlite3.Connection: ...
    def _init_schema(self) -> None: ...
    def _reads(self) -> SQLiteReads: ...

    def _heal(self, why: str) -> str:
        """A file found damaged while in use: moved aside and a new one started in its place, once per damage,
        so every session's next call (and the rebuild `on_heal` starts) uses the new file."""
        with self._write_lock, self._heal_lock:
            if time.monotonic() - self._healed_at < HEAL_DEDUP_SECONDS:
                return self._heal_notice  # the same damage, seen by another call at the same moment
            try:
                aside = f"moved aside to {move_aside(self.path).name}"
            except FileNotFoundError:
                aside = "it was gone"
            except OSError as exc:
                aside = f"it cannot be moved aside ({exc.strerror or exc})"
            self._swap()
            self._healed_at = time.monotonic()
            self._heal_notice = f"the site index {self.path} was damaged while in use ({why}): {aside}, and a new one is built"
            logging.getLogger("docs_mcp").warning("%s", self._heal_notice)
        if self.on_heal is not None:
            self.on_heal(self._heal_notice)
        return self._heal_notice

    def _swap(self) -> None:
        """New connections on the file now at the path (the caller holds the write and heal locks)."""
        old, self.db = self.db, self._connect()
        old.close()  # the writer's: used only under the write lock, which this thread holds
        self._init_schema()
        with self._readers_lock:
            self._readers = []
        self._local = threading.local()  # readers open new connections, now that the schema is there
        self._scope_memo.clear()

    def _follow_file(self) -> SQLiteReads:
        """The file is not the one opened: deleted (healed as damaged: the rebuild message), or put in its place
        by another process that healed it (taken up). This thread's reads on the file now there."""
        if file_identity(self.path) is None:
            raise IndexDamaged(self._heal("the file was deleted"))
        with self._write_lock, self._heal_lock:
            if file_identity(self.path) != self._file:
                self._swap()
        return self._reads()
