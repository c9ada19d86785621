"""Code fences in markdown text: which one is open at a point, by CommonMark's rule for closing a fence."""

from __future__ import annotations

import re

#: A fence line: three or more backticks or tildes at any indentation (fences sit indented in list items),
#: then the rest of the line (an opening fence's info string).
FENCE_LINE = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$", re.M)


def open_fence_line(text: str, start: int = 0, end: int | None = None) -> re.Match[str] | None:
    """The opening line of the fence still open at `end` (default: the end), reading from `start`.

    A fence closes only on a line of its own character, at least as long, with nothing after it: a ```` ``` ````
    line inside a `~~~` block is code. A backtick line with a backtick after it is not a fence (inline code).
    """
    opening = None
    for m in FENCE_LINE.finditer(text, start, len(text) if end is None else end):
        marker, rest = m.group(1), m.group(2)
        if opening is None:
            if not (marker[0] == "`" and "`" in rest):
                opening = m
        elif marker[0] == opening.group(1)[0] and len(marker) >= len(opening.group(1)) and not rest.strip():
            opening = None
    return opening


def open_fence(text: str, end: int | None = None) -> str | None:
    """The fence marker left open at `end` (default: the end of `text`), if any; no copy of the prefix is made."""
    opening = open_fence_line(text, 0, end)
    return opening.group(1) if opening else None
