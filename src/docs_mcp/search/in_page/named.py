"""Words that name another section of the page: a summary table's row, a contents list's line, a reference.

gtk-doc, Doxygen and qdoc open a class or module page with a table of every function it documents, and a chapter
opens with a list of its sections: such a section holds every name of the page and outranked the section each
name is the heading of. Where a section's text says another section's title (a title of two words or more, the
only section with that title), those words are a pointer to that section, not content: they keep the section's
length but match no query.
"""

from __future__ import annotations

from collections import Counter

from docs_mcp.settings import mechanism_on

#: Titles of fewer tokens ("Returns", "Description") are ordinary words in a text, not a name.
NAME_MIN_TOKENS = 2
#: A section naming this many other sections, its names this share of its words or more, lists them (prose
#: that names three functions of the page is still about its own subject: GTK's "Mnemonics").
LISTING_NAMES = 3
LISTING_SHARE = 0.5


def without_names(titles: list[list[str]], tokens: list[list[str]], pad: str) -> list[list[str]]:
    """Each section's tokens with every other section's title (`titles`: each section's title tokens) in them
    replaced by `pad`, one per token.

    Linear in the page's tokens: titles are looked up by their first two tokens.
    """
    if not mechanism_on("named-sections"):
        return tokens
    named = [tuple(t) for t in titles]
    once = Counter(named)
    by_start: dict[tuple[str, str], list[tuple[tuple[str, ...], int]]] = {}
    for j, title in enumerate(named):
        if len(title) >= NAME_MIN_TOKENS and once[title] == 1:
            by_start.setdefault(title[:2], []).append((title, j))
    if not by_start:
        return tokens
    return [_padded(toks, i, by_start, pad) for i, toks in enumerate(tokens)]


def _padded(
    toks: list[str], i: int, by_start: dict[tuple[str, str], list[tuple[tuple[str, ...], int]]], pad: str
) -> list[str]:
    """Section i's tokens with the longest other section's title at each place padded out, when the section
    is a list of them (LISTING_NAMES, LISTING_SHARE); prose that names a few keeps its words."""
    found: list[tuple[int, int]] = []
    named: set[int] = set()
    k, n = 0, len(toks)
    while k < n - 1:
        longest, which = 0, -1
        for title, j in by_start.get((toks[k], toks[k + 1]), ()):
            if j != i and len(title) > longest and tuple(toks[k : k + len(title)]) == title:
                longest, which = len(title), j
        if longest:
            found.append((k, longest))
            named.add(which)
            k += longest
        else:
            k += 1
    if len(named) < LISTING_NAMES or sum(size for _, size in found) < LISTING_SHARE * n:
        return toks
    out = list(toks)
    for k, size in found:
        out[k : k + size] = [pad] * size
    return out
