"""Build locks: one build of a root at a time across the processes sharing a cache folder."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def build_lock(index_path: Path, root: str) -> FileBuildLock:
    """The lock of one root's builds, beside the index file."""
    digest = hashlib.sha1(root.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return FileBuildLock(index_path.with_name(f"{index_path.name}.build-{digest}.lock"))


class FileBuildLock:
    """An advisory file lock (flock) held for one build; the kernel drops it if the process dies."""

    def __init__(self, path: Path):
        self.path = path
        self._fd: int | None = None

    def try_acquire(self) -> bool:
        try:
            import fcntl
        except ImportError:  # no flock (Windows): builds only coordinate through SQLite's own locking
            return True
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd = fd
        return True

    def holder(self) -> str:
        """The pid written by the process holding the lock ("" if unknown)."""
        try:
            return self.path.read_text().strip()
        except OSError:
            return ""

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor releases the flock
            self._fd = None
