"""A tool call's deadline, seen by the work it started on other threads: long loops and queries stop at it.

The server's deadline (`asyncio.timeout`) answers the caller, but a thread cannot be cancelled: a search in
`asyncio.to_thread` went on after its error was sent. The deadline is a context variable, which threads
started with the call's context (`asyncio.to_thread` copies it) see; `check` raises past it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from docs_mcp.errors import DeadlineExceeded

#: (monotonic time it ends, its length in seconds) of the call this context works for; None: no deadline.
_CURRENT: ContextVar[tuple[float, float] | None] = ContextVar("docs_mcp_deadline", default=None)


@contextmanager
def within(seconds: float) -> Iterator[None]:
    """Work started inside the block (on this thread or one given its context) stops `seconds` from now."""
    token = _CURRENT.set((time.monotonic() + seconds, seconds))
    try:
        yield
    finally:
        _CURRENT.reset(token)


def passed() -> bool:
    """Whether the current call's deadline has passed (never, outside a call)."""
    current = _CURRENT.get()
    return current is not None and time.monotonic() > current[0]


def remaining() -> float | None:
    """Seconds left to the current call's deadline (0.0 once past); None outside a call."""
    current = _CURRENT.get()
    return None if current is None else max(0.0, current[0] - time.monotonic())


def check(work: str = "the search") -> None:
    """Raise DeadlineExceeded when the current call's deadline has passed: the work stops there."""
    current = _CURRENT.get()
    if current is not None and time.monotonic() > current[0]:
        raise DeadlineExceeded(
            f"{work} did not finish within the {current[1]:g}s deadline (--deadline) and was stopped; "
            "retry with fewer or more specific words, or raise --deadline"
        )
