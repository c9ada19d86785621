"""Context budgets: clamping sizes, cutting at natural boundaries, exact pagination."""

from __future__ import annotations

import re
from dataclasses import dataclass

from docs_mcp.settings import BOUNDARY_WINDOW
from docs_mcp.text.fences import open_fence, open_fence_line

#: Sentence-ending punctuation; the CJK ones end a sentence even with no space after them.
_STOPS, _CJK_STOPS = ".!?。！？", "。！？"
_SENTENCE_END = re.compile(rf"[{_STOPS}](?=\s)|[{_CJK_STOPS}]")
#: Closing marks that may follow a sentence's full stop: `(see bpo-1.)`, `*Notes.*`, `"quoted."`.
_CLOSERS = "\\)\\]\"'”’*_`"
#: Where `finish_sentence` stops: end punctuation (not `e.g.`/`i.e.`) or a colon, then space or the end of the
#: text; or, before it, a blank line or a line that opens a list item, quote, table row, heading or fence.
_CLAUSE_END = re.compile(
    rf"(?<!e\.g)(?<!i\.e)[{_STOPS}][{_CLOSERS}]*(?=\s|\Z)|(?<=\w):(?=\s|\Z)|[{_CJK_STOPS}]"
    r"|\n[ \t]*(?:\n|[-*+>|#]|\d+[.)]\s|```|~~~)"
)
_COMPLETE = re.compile(rf"[{_STOPS}:][{_CLOSERS}]*$")


def last_sentence_start(text: str) -> int:
    """Where the text's last sentence starts (after the previous sentence's end): 0 when it has one sentence."""
    # `_SENTENCE_END`'s last match before the trailing space, looked for from the end with str.rfind: its
    # finditer ran every character of every section's text through the regex engine (crawl/rows.py).
    end, last = len(text.rstrip()) - 1, 0  # a sentence end at `at` counts when text follows it: at < end
    for stop in _STOPS:
        at = text.rfind(stop, last, end) if end > 0 else -1
        # The regex's `\s` is str.isspace; only an end later than the one found so far matters.
        while at != -1 and stop not in _CJK_STOPS and not text[at + 1].isspace():
            at = text.rfind(stop, last, at)
        if at != -1:
            last = at + 1
    return last


def window_length(max_length: int, hard_cap: int) -> int:
    """The chars a window holds for a valid max_length: 0 means the cap, and so does a default above a lower cap."""
    return min(max_length or hard_cap, hard_cap)


def boundary_cut(text: str, start: int, limit: int) -> int:
    """End offset for a window of at most `limit` chars from `start`, at the best natural boundary.

    Tries, within the last BOUNDARY_WINDOW characters: a paragraph break, a line break, a sentence end,
    a space; else cuts hard. The window never ends inside a code fence it opened, when avoidable.
    """
    end = start + limit
    if end >= len(text):
        return len(text)
    lo = max(start + 1, end - BOUNDARY_WINDOW)
    window = text[lo:end]
    cut = -1
    para = window.rfind("\n\n")
    if para >= 0:
        cut = lo + para + 2
    else:
        line = window.rfind("\n")
        if line >= 0:
            cut = lo + line + 1
        else:
            ends = list(_SENTENCE_END.finditer(window))
            if ends:
                cut = lo + ends[-1].end()
            else:
                space = window.rfind(" ")
                cut = lo + space + 1 if space >= 0 else end
    return _avoid_open_fence(text, start, cut)


def finish_sentence(text: str, end: int, reach: int) -> int:
    """`end` moved on to the end of the sentence it cuts, if that ends within `reach` chars; else `end`.

    It never runs into the next block (list item, table row, code) nor on from inside a table row or fence.
    """
    if end >= len(text) or reach <= 0 or _COMPLETE.search(text, max(0, end - 8), end):
        return end
    line_start = text.rfind("\n", 0, end) + 1
    if text[line_start:end].lstrip().startswith("|") or open_fence(text, end):
        return end
    m = _CLAUSE_END.search(text, end)  # no endpos: `\Z` must mean the real end of the text
    if m is None:
        return end
    stop = m.start() if m.group(0).startswith("\n") else m.end()
    return stop if stop <= end + reach else end


def _avoid_open_fence(text: str, start: int, cut: int) -> int:
    """Move a cut back to before an unclosed fence's opening line, if that leaves something to return."""
    opening = open_fence_line(text, start, cut)
    return opening.start() if opening and opening.start() > start else cut


@dataclass(frozen=True)
class Window:
    """A slice of a text: content, where it started, and where the next call should start (None at the end)."""

    content: str
    start: int
    next_start: int | None
    total: int


def paginate(text: str, start: int, limit: int) -> Window:
    """Exact pagination: concatenating windows while following next_start reproduces the text."""
    total = len(text)
    start = max(0, min(start, total))
    end = boundary_cut(text, start, limit)
    return Window(text[start:end], start, end if end < total else None, total)


def truncate(text: str, limit: int) -> tuple[str, bool]:
    """First part of a text within `limit` at a natural boundary; whether it was cut."""
    if len(text) <= limit:
        return text, False
    end = boundary_cut(text, 0, limit)
    return text[:end].rstrip(), True


def last_line_end(text: str, end: int, extra: int) -> int:
    """The end of the last whole line within `extra` chars after `end` (`end` itself if none)."""
    stop = text.rfind("\n", end, end + extra)
    while stop > end and text[stop - 1] == "\n":  # blank lines are not worth showing at the end
        stop -= 1
    return stop if stop > end else end
