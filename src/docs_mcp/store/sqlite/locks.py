"""Build locks: one build of a root at a time across the processes sharing a cache folder (filelock: an
OS lock on every platform, dropped by the kernel when its process dies), and no lock file left behind."""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

from filelock import FileLock, Timeout


def build_lock(index_path: Path, root: str) -> FileBuildLock:
    """The lock of one root's builds, beside the index file."""
    digest = hashlib.sha1(root.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return FileBuildLock(index_path.with_name(f"{index_path.name}.build-{digest}.lock"))


class FileBuildLock:
    """Held for one build; the file names the holder's pid while held and is removed when it is released."""

    def __init__(self, path: Path):
        self.path = path
        self._lock = FileLock(path, thread_local=False, blocking=False, on_acquired=self._mark)
        #: (device, inode) of the file this process holds locked: only that file is removed on release.
        self._held: tuple[int, int] | None = None

    def _mark(self, fd: int) -> None:
        """Write our pid into the lock file, for the message of a build that waits for us."""
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        info = os.fstat(fd)
        self._held = (info.st_dev, info.st_ino)

    def try_acquire(self) -> bool:
        try:
            self._lock.acquire()
        except Timeout:
            return False
        except OSError:  # a file system without OS locks: builds only coordinate through SQLite's locking
            return True
        return True

    def holder(self) -> str:
        """The pid written by the process holding the lock ("" if unknown)."""
        try:
            return self.path.read_text().strip()
        except OSError:
            return ""

    def held(self) -> bool:
        """An OS lock is held until released or its process dies: never lost under a running build."""
        return self._lock.is_locked

    def release(self) -> None:
        if not self._lock.is_locked:
            return
        # Removed while still locked: a process that opened the old file finds it unlinked once it gets the
        # lock (filelock checks) and opens the path again. Windows' filelock removes the file itself.
        if os.name == "posix" and self._held is not None:
            with contextlib.suppress(OSError):
                info = self.path.stat()
                if (info.st_dev, info.st_ino) == self._held:
                    self.path.unlink()
        self._held = None
        self._lock.release()
