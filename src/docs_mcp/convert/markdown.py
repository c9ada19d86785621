"""Markdown stage: a section's markdown (html_markdown.py), the plain-text fallback, and the cleaning pass."""

from __future__ import annotations

import re
from bisect import bisect_left
from itertools import accumulate

import lxml.html

from docs_mcp.convert.cleanup import BLANK_RUNS, clean_markdown
from docs_mcp.convert.definitions import CLOSE, END, START
from docs_mcp.convert.html_markdown import to_markdown
from docs_mcp.convert.parsing import element_text
from docs_mcp.settings import MAX_CONVERT_CHARS


def html_to_markdown(fragment: str, include_code: bool) -> str:
    """Convert a simplified HTML fragment (code blocks are flattened <pre> elements by then)."""
    return convert(fragment, include_code)[0]


def convert(fragment: str, include_code: bool, entries: int = 0) -> tuple[str, list[tuple[int, int] | None]]:
    """Markdown of a fragment, and where each of its `entries` marked definitions lies in it."""
    if not fragment.strip():
        return "", [None] * entries
    if len(fragment) > MAX_CONVERT_CHARS:
        size = f"{len(fragment) / 1e6:.1f} MB" if len(fragment) >= 1e6 else f"{len(fragment):,} chars"
        note = f"[docslice: this section's HTML is {size}, too large to convert to markdown; shown as plain text]"
        text = note + "\n\n" + clean_markdown(plain_text(fragment))
    else:
        try:
            text = clean_markdown(to_markdown(fragment, include_code))
        except RecursionError:  # nesting is limited at parse time; this is the last line of defence
            text = clean_markdown(plain_text(fragment))
    return extract_markers(text, entries)


def plain_text(fragment: str) -> str:
    """The fragment's text with a line break after each block and ` | ` between table cells (no bs4)."""
    return "".join(
        piece if isinstance(piece, str) else element_text(piece, lines=True) + (piece.tail or "")
        for piece in lxml.html.fragments_fromstring(fragment)
    )


_MARKER = re.compile(f"([{START}{END}])(\\d+){CLOSE}")
_MARKER_ONLY = re.compile(f"[ \\t>]*(?:[{START}{END}]\\d+{CLOSE}[ \\t]*)+")


def extract_markers(text: str, entries: int) -> tuple[str, list[tuple[int, int] | None]]:
    """Remove definition markers; returns the text and the span of each entry (None if its markers are lost).

    A line holding only markers (one that closes a definition after a block) is dropped with them: an end
    there falls where the previous content ends, a start where the next line begins.
    """
    if START not in text and END not in text:
        return text, [None] * entries
    starts: dict[int, int] = {}
    ends: dict[int, int] = {}
    out: list[str] = []
    size = content_end = 0
    for line in text.split("\n"):
        if _MARKER_ONLY.fullmatch(line):
            for m in _MARKER.finditer(line):
                if m.group(1) == END:
                    ends[int(m.group(2))] = content_end
                else:
                    starts[int(m.group(2))] = size
            continue
        last = 0
        for m in _MARKER.finditer(line):
            out.append(line[last : m.start()])
            size += m.start() - last
            (ends if m.group(1) == END else starts)[int(m.group(2))] = size
            last = m.end()
        out.append(line[last:] + "\n")
        size += len(line) - last + 1
        if line[last:].strip() or last:
            content_end = size - 1
    clean, shift = _collapse_blank_runs("".join(out))
    spans: list[tuple[int, int] | None] = []
    for k in range(entries):
        if k in starts and k in ends:
            lo = shift(starts[k])
            spans.append((lo, max(lo, shift(ends[k]))))
        else:
            spans.append(None)
    return clean, spans


def _collapse_blank_runs(text: str):
    """Collapse 3+ newlines (left where marker lines went) and trim; returns the text and an offset mapper."""
    cuts: list[tuple[int, int]] = []  # (position in the old text, chars removed there)
    lead = len(text) - len(text.lstrip("\n"))
    if lead:
        cuts.append((0, lead))
    for m in BLANK_RUNS.finditer(text):
        if m.start() >= lead:
            cuts.append((m.start() + 2, m.end() - m.start() - 2))
    body_end = len(text.rstrip("\n"))
    clean = BLANK_RUNS.sub("\n\n", text).strip("\n")

    # Cuts are disjoint and in order: those before p's cut are removed whole (a running sum); a bisection finds
    # p's cut, so a page of 1,600 definitions maps its offsets in linear time, not quadratic (6 s → ms).
    ats = [at for at, _ in cuts]
    before = list(accumulate((n for _, n in cuts), initial=0))

    def shift(p: int) -> int:
        k = bisect_left(ats, p)  # cuts[:k] start before p
        removed = before[k - 1] + min(cuts[k - 1][1], p - ats[k - 1]) if k else 0
        return max(0, min(p, body_end) - removed)

    return clean, shift
