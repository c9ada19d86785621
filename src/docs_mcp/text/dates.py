"""Times shown to people and models: UTC, to the minute, the zone written out."""

from __future__ import annotations

import time


def utc_minute(ts: float, missing: str = "unknown") -> str:
    """`2025-02-10 14:03 UTC`; `missing` for a time never recorded (0)."""
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(ts)) if ts else missing


def utc_clock(ts: float) -> str:
    """`14:03 UTC`: a time of today's events."""
    return time.strftime("%H:%M UTC", time.gmtime(ts))


def ago(seconds: float) -> str:
    """`just now`, `12 min ago`, `5 h ago`, `3 d ago`: how long since something happened, roughly."""
    if seconds < 60:
        return "just now"
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{int(seconds // size)} {unit} ago"
    return "just now"
