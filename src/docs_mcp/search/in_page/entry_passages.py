"""Passages that open on one entry (an option, a pragma) that ranked its section: the entry first, then the
section's best other windows for the slots left."""

from __future__ import annotations

from docs_mcp.search.in_page.passages import Passage, passages
from docs_mcp.search.in_page.ranking import PageIndex
from docs_mcp.settings import PASSAGE_TERM_CHARS


def entry_first(
    index: PageIndex,
    text: str,
    query: str,
    span: tuple[int, int],
    count: int,
    size: int,
    budget: int,
    reach: int,
    run_on: int = 0,
) -> list[Passage]:
    """Passages when one entry (at `span` in `text`) ranked the section: the entry first, whole when it fits
    the budget, else its term line and its best windows; then, for slots left, the section's best others."""
    a, b = span
    budget = budget or count * size
    if b - a <= budget:
        first = [Passage(a, text[a:b])]
    else:
        term_end = min(text.find("\n", a) % (b + 1) or b, a + PASSAGE_TERM_CHARS)
        room = budget - (term_end - a)
        inner = (
            passages(index, text[term_end:b], query, count, min(size, room), room, reach, run_on)
            if room > 0
            else []
        )
        first = [Passage(a, text[a:term_end]), *(Passage(term_end + p.offset, p.text) for p in inner)]
        first = _merge_passages(text, first)
    used = sum(len(p.text) for p in first)
    left = count - len(first) + 1
    if left <= 0 or budget - used < size // 2:
        return first
    # One run-on per answer: the entry's windows had it unless the entry came whole.
    rest_run_on = run_on if b - a <= budget else 0
    rest = [
        p
        for p in passages(index, text, query, count + 1, size, budget - used, reach, rest_run_on)
        if p.offset + len(p.text) <= a or p.offset >= b
    ]
    return sorted(first + rest[:left], key=lambda p: p.offset)


def _merge_passages(text: str, found: list[Passage]) -> list[Passage]:
    """Passages in text order, those with only blank lines between them joined into one."""
    out: list[Passage] = []
    for p in sorted(found, key=lambda p: p.offset):
        if out and not text[out[-1].offset + len(out[-1].text) : p.offset].strip():
            last = out[-1]
            out[-1] = Passage(
                last.offset, text[last.offset : max(p.offset + len(p.text), last.offset + len(last.text))]
            )
        else:
            out.append(p)
    return out
