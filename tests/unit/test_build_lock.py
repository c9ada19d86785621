"""Build locks (filelock): one build of a root at a time, the holder named, and no lock file left behind."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import filelock

from docs_mcp.store.sqlite.locks import build_lock

HOLD = """
import sys, time
from pathlib import Path
from docs_mcp.store.sqlite.locks import build_lock
lock = build_lock(Path(sys.argv[1]), "https://example.org/docs/")
assert lock.try_acquire()
print("held", flush=True)
sys.stdin.readline()
lock.release()
"""


def test_a_second_build_of_a_root_waits_for_the_first_and_can_name_its_pid(tmp_path):
    first = build_lock(tmp_path / "index.sqlite", "https://example.org/docs/")
    second = build_lock(tmp_path / "index.sqlite", "https://example.org/docs/")
    other_root = build_lock(tmp_path / "index.sqlite", "https://example.org/api/")
    assert first.try_acquire()
    try:
        assert not second.try_acquire()
        assert second.holder() == str(os.getpid())
        assert other_root.try_acquire()  # another root builds beside it
        other_root.release()
    finally:
        first.release()
    assert second.try_acquire()
    second.release()


def test_a_lock_held_by_another_process_is_refused_and_free_once_it_lets_go(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(tmp_path / "index.sqlite")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        mine = build_lock(tmp_path / "index.sqlite", "https://example.org/docs/")
        assert not mine.try_acquire()
        assert mine.holder() == str(holder.pid)
    finally:
        holder.communicate("\n", timeout=30)
    assert holder.returncode == 0
    assert mine.try_acquire()
    mine.release()


def test_no_lock_file_is_left_in_the_cache_folder_once_released(tmp_path):
    lock = build_lock(tmp_path / "index.sqlite", "https://example.org/docs/")
    assert lock.try_acquire()
    assert list(tmp_path.glob("*.lock")) == [lock.path]
    lock.release()
    lock.release()  # twice is harmless
    assert list(tmp_path.glob("*.lock")) == []


def test_the_lock_is_an_os_lock_on_every_platform_not_a_posix_only_one():
    # fcntl.flock does nothing on Windows (the old lock silently let every build through there); filelock
    # picks the platform's own lock (msvcrt on Windows, flock elsewhere).
    lock = build_lock(Path("index.sqlite"), "https://example.org/docs/")
    assert isinstance(lock._lock, filelock.FileLock)
    assert filelock.FileLock is (
        filelock.WindowsFileLock if sys.platform == "win32" else filelock.UnixFileLock
    )
