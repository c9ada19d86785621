"""Handing the memory of a large page back to the system once it is done with: glibc keeps freed memory in the
heap for reuse, so an indexing process grew to its largest pages' peak and stayed there."""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from functools import cache

#: A page (or a page's vector texts) this long is followed by a trim: a worker grew to its largest pages' peak
#: (JDK 17's Javadoc: 290 MB each; trimmed after the 97 pages over 200 KB, ~130 MB between them; ~1 ms a trim).
TRIM_AFTER_CHARS = 200_000


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError):  # not glibc (musl, macOS, Windows): their allocators differ
        return None


def trim_heap() -> None:
    """Hand the heap's free memory back to the system (glibc's malloc_trim); nothing elsewhere."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
