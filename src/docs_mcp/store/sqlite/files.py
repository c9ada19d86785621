"""The index file on disk: the O(1) checks that tell a damaged one, moving it (with its WAL) aside, a private
cache folder, what to say when the disk is full."""

from __future__ import annotations

import logging
import os
import shutil
import stat
import time
from pathlib import Path

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


def file_identity(path: Path) -> tuple[int, int] | None:
    """The file's device and inode, to notice it deleted or replaced (None: there is no file at the path)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def disk_full(path: Path) -> str:
    """What to tell the user when the disk under the index fills up (nothing indexed before is lost)."""
    try:
        free = f"{shutil.disk_usage(path.parent).free / 1e6:,.0f} MB free"
    except OSError:
        free = "free space unknown"
    return f"the disk holding {path.parent} is full ({free}): the index keeps the pages indexed before"


def private_dir(folder: Path) -> None:
    """Create the cache folder readable by its owner only (indexed docs may be private); warn, once per
    process, when an existing one is readable by other local users."""
    if not folder.is_dir():
        folder.parent.mkdir(parents=True, exist_ok=True)
        folder.mkdir(mode=0o700, exist_ok=True)
        return
    if folder.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO) and str(folder) not in _WARNED:
        _WARNED.add(str(folder))
        logging.getLogger("docs_mcp").warning(
            "the cache folder %s is readable by other local users: `chmod 700 %s` keeps its docs private",
            folder,
            folder,
        )


_WARNED: set[str] = set()
