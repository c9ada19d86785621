"""The index file on disk: damage checks, moving a damaged file aside, opening with recovery."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from docs_mcp.errors import IndexDamaged, IndexUnavailable, IndexVersionError
from docs_mcp.store.index import SiteIndex

_MAGIC = b"SQLite format 3\x00"


def damage(path: Path) -> str | None:
    """Why the file at `path` cannot be an intact index (its type, header and size), else None. O(1)."""
    if not path.exists():
        return None
    if path.is_dir():
        return "a directory is in its place"
    if not path.is_file():
        return "it is not a regular file"
    size = path.stat().st_size
    if size == 0:
        return None  # created, never written: SQLite starts it
    with path.open("rb") as f:
        head = f.read(100)
    if len(head) < 100 or not head.startswith(_MAGIC):
        return "it is not an SQLite database (bad header)"
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(head[28:32], "big")
    # The header's page count is valid when its change counter matches (always, since SQLite 3.7).
    if head[24:28] == head[92:96] and size < pages * page_size:
        wal = path.with_name(path.name + "-wal")
        if wal.is_file() and wal.stat().st_size > 0:
            return None  # a checkpoint cut short (a full disk): the WAL beside it still holds the pages
        return f"it is truncated ({size:,} of {pages * page_size:,} bytes)"
    return None


def move_aside(path: Path) -> Path:
    """Rename a damaged index (and its WAL files) out of the way; returns the new name of the main file."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.name}.damaged-{stamp}-{os.getpid()}")
    for suffix in ("-wal", "-shm"):
        extra = path.with_name(path.name + suffix)
        if extra.exists():
            extra.replace(aside.with_name(aside.name + suffix))
    path.replace(aside)
    return aside


@dataclass(frozen=True)
class Opened:
    """The index a process can use (None: none can be used here), and what to tell the user about it."""

    index: SiteIndex | None
    #: One line for stderr: a damaged file moved aside, or why there is no index ("" when all is well).
    notice: str = ""
    #: A damaged index was found (and moved aside: the index starts empty and is rebuilt).
    damaged: bool = False


def open_index(path: Path, fresh_seconds: float = 7 * 86400) -> Opened:
    """Open the index; a damaged file is moved aside and a new one started, any other problem reported."""
    try:
        why = damage(path)
        if why:
            raise IndexDamaged(f"the site index {path} is damaged: {why}")
        return Opened(SiteIndex(path, fresh_seconds))
    except IndexDamaged as exc:
        damaged = exc
    except (IndexUnavailable, IndexVersionError) as exc:
        return Opened(None, str(exc))
    try:
        aside = f"moved aside to {move_aside(path).name}"
    except FileNotFoundError:  # another process moved it first
        aside = "moved aside by another process"
    except OSError as exc:
        return Opened(None, f"{damaged}; it cannot be moved aside ({exc.strerror or exc})", True)
    try:
        index = SiteIndex(path, fresh_seconds)
    except (IndexUnavailable, IndexVersionError) as exc:
        return Opened(None, f"{damaged}; {aside}, but no new index can be made: {exc}", True)
    return Opened(index, f"{damaged}; {aside}, and a new one is built", True)
