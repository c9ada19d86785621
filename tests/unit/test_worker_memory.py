"""An indexing worker hands the memory of a large page back once it is done with it (glibc's malloc_trim)."""

from __future__ import annotations

import ctypes
import sys

import pytest

from docs_mcp.crawl.heap import trim_heap


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


def _glibc() -> bool:
    try:
        return hasattr(ctypes.CDLL(None), "gnu_get_libc_version")
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux") or not _glibc(), reason="glibc's heap only")
def test_trim_heap_returns_freed_memory_held_below_a_live_block() -> None:
    # 80 MB of 1 KB blocks from malloc's heap, then one small block above them: freed, they cannot shrink the
    # heap from its top, so glibc keeps them (the worker's state after a large page's tree and texts).
    blocks = [bytes(1024) + bytes([i % 256]) for i in range(80_000)]
    keeper = [bytes(2048) + bytes([1])]
    del blocks
    held = _rss_mb()
    trim_heap()
    assert held - _rss_mb() > 40, f"{held:.0f} MB held, {_rss_mb():.0f} MB after the trim"
    assert keeper[0][-1] == 1
