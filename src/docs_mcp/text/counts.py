"""Counts in plain English: "1 page", "2 pages", "1,024 pages"."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str = "") -> str:
    """`n` and its noun, singular for exactly one (`plural` when adding an s is wrong)."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"
