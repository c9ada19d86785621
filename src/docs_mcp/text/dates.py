"""Times shown to people and models: UTC, to the minute, the zone written out."""

from __future__ import annotations

import time


def utc_minute(ts: float, missing: str = "unknown") -> str:
    """`2025-02-10 14:03 UTC`; `missing` for a time never recorded (0)."""
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(ts)) if ts else missing


def utc_clock(ts: float) -> str:
    """`14:03 UTC`: a time of today's events."""
    return time.strftime("%H:%M UTC", time.gmtime(ts))
