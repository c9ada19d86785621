"""Qualified names a query spells as plain words (`json dumps` for `json.dumps`, `pathlib glob` for pathlib's
`Path.glob`): which pages define one, found in their sections' defined names with two regular expressions."""

from __future__ import annotations

import re
from collections.abc import Iterable

from docs_mcp.search.site.scoring import selective_phrases
from docs_mcp.settings import mechanism_on
from docs_mcp.store.interface import Reads, Scope
from docs_mcp.text.terms import spaced_names, tokenize

#: Sections read for them: found by their last word alone, a common one (`get`) matches thousands of Javadoc
#: sections, each defining hundreds of names.
SPELT_CANDIDATES = 100


class SpacedNames:
    """The adjacent word pairs (a, b) of a query, matched against a section's newline-separated names."""

    def __init__(self, query: str, selective: Iterable[str] | None = None):
        pairs = spaced_names(query)
        #: A qualified name's last part -> the words the query puts before it.
        self.firsts: dict[str, list[str]] = {}
        for a, b in pairs:
            self.firsts.setdefault(b, []).append(a)
        #: FTS phrases finding the candidates: each pair's last word; with `selective` (the query's terms the
        #: site does not hold nearly everywhere, scoring.selective_terms), only those holding one. A word most
        #: sections hold names no one definition, and its postings were most of a search's cost on JDK 17's
        #: Javadoc ("java", "class": 17% of its CPU for 200 title queries).
        phrases = sorted({" ".join(tokenize(b)) for _, b in pairs} - {""})
        self.phrases = phrases if selective is None else selective_phrases(phrases, selective)
        lasts = "|".join(map(re.escape, self.firsts))
        self._last = re.compile(rf"\.({lasts})$", re.M | re.I) if lasts else None

    def __bool__(self) -> bool:
        return self._last is not None and bool(self.phrases)

    def match(self, names: str) -> tuple[str, bool] | None:
        """The query word before a last part some qualified name here ends with, and whether a name holds
        both words (`datetime.isoformat` for "datetime isoformat", preferred to `time.isoformat`); or None."""
        if self._last is None:
            return None
        found = None
        lines = names.casefold().split("\n")
        for b in dict.fromkeys(m.casefold() for m in self._last.findall(names)):
            for a in self.firsts[b]:
                if holds_both(lines, a, b):
                    return a, True
                found = found or (a, False)
        return found


def holds_both(names: list[str], a: str, b: str) -> bool:
    r"""Whether a (casefolded) name is `a.b` or `….a.….b`: `a` one of its dotted parts before its last one, `b`.

    Split, not a regular expression: a pattern like `(?:^|\.)a\.(?:[^\n]*\.)?b$` backtracks over every `a.` of
    a name, quadratic in its length, and a page controls its names (a 192 KB `ab.ab.…x(y)` took 35 s of CPU).
    """
    tail = "." + b
    return any(name.endswith(tail) and a in name[: -len(tail)].split(".") for name in names)


def spelt_pages(
    reads: Reads, query: str, scope: Scope, selective: Iterable[str] | None = None
) -> dict[int, tuple[int, str]]:
    """Pages with a section defining a qualified name the query spells as words, and the word before its last
    part (the caller keeps the pages whose title starts with it); `selective` as in `SpacedNames`."""
    spaced = SpacedNames(query, selective) if mechanism_on("spaced-names") else None
    if not spaced:
        return {}
    found: dict[int, tuple[int, str, bool]] = {}
    for page_id, section_id, names in reads.name_matches(spaced.phrases, scope, SPELT_CANDIDATES):
        if page_id in found and found[page_id][2]:
            continue
        hit = spaced.match(names)
        if hit is not None and (page_id not in found or hit[1]):
            found[page_id] = (section_id, *hit)
    return {pid: (sid, a) for pid, (sid, a, _) in found.items()}
