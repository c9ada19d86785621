"""The tools' own lines around page text (search_in_doc's map, `more on this page (get_doc_section with the id):`
and its `- #id Name · 4,210 chars · …` lines; get_doc_*'s `[cut at … chars: call … with start_index=…]`; a
passage's `[12,345-char section: …]`): a page's line of the same shape is shown with a backslash before it, a
markdown escape, so the model never mistakes the page's text for the tool's word."""

from __future__ import annotations

import re
from bisect import bisect_left

#: A line (after blanks and quote markers) shaped like one of the tools' own; anchored at line starts, and no
#: repeat can run into the next line: linear in the text (tests/unit/test_regex_backtracking.py).
_TOOL_LINE = re.compile(
    r"^([ \t>]*)(?=more on this page \(|\[cut at [\d,]+ of |\[… call |\[[\d,]+-char section: "
    r"|- #\S+ [^\n]*· [\d,]+ chars)",
    re.M,
)


def unforgeable(text: str) -> tuple[str, list[int]]:
    """`text` with a backslash before each line shaped like a tool's own, and where they went (positions in
    `text`, ascending): what `shifted` needs to move offsets into the result."""
    places = [m.end(1) for m in _TOOL_LINE.finditer(text)]
    if not places:
        return text, []
    parts, last = [], 0
    for at in places:
        parts += [text[last:at], "\\"]
        last = at
    parts.append(text[last:])
    return "".join(parts), places


def shifted(offset: int, places: list[int]) -> int:
    """Where an offset of the text (a span's start or end) lies once `unforgeable` has escaped it."""
    return offset + bisect_left(places, offset)
