"""Closeness of the query's words: a page whose matching sections hold two adjacent query words near each other
("signal trap", "foreground command") says what the query says, not only its words scattered over a chapter.

Judged on the text of each head page's best-matching sections, read from the store (any engine: neither
store keeps word positions alike), with a regex over the lowercased text rather than a full tokenizing: the
words that may stem to a query term are found first, and only those are stemmed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import pairwise

from docs_mcp.deadline import check
from docs_mcp.search.site.scoring import Evidence
from docs_mcp.store.interface import Reads
from docs_mcp.text.terms import bounded_query, query_terms, stem

#: Pages (best first by their words) whose sections are read for closeness. The four constants below were set
#: on the tuning halves by replaying the ranker offline (17 sets, both forms, MRR@10 summed over 904
#: question-forms; none: 653.8): a head of 5 / 10 / 20 pages 660.9 / 662.6 / 660.8.
PROXIMITY_HEAD = 10
#: Of each of those pages, its best-matching sections read: 1 / 3 / 5: 660.8 / 662.6 / 661.2.
PROXIMITY_SECTIONS = 3
#: Two query words count as near with at most this many words between them: 4 / 6 / 8: 661.4 / 662.6 / 661.2.
NEAR_WORDS = 6
#: The bonus for holding every pair near (times the IDF share of the pairs held): 0.8 / 1.0 / 1.2: 661.1 /
#: 662.6 / 662.3.
PROXIMITY_BONUS = 1.0
#: Of a section's text, the most read for closeness (a 1 MB section must not hold a search).
_TEXT_CHARS = 100_000
#: Characters between two matches beyond which they cannot be NEAR_WORDS words apart (a cheap first test).
_SPAN = 120
#: How many later matches each match is compared with (other query words may stand between two near ones).
_LOOKAHEAD = 8
_WORD = re.compile(r"\w+")


def query_pairs(query: str) -> list[tuple[str, str]]:
    """The adjacent pairs of the query's content terms (`signal trap`, `trap run`), each once."""
    terms = [t for t in query_terms(query) if " " not in t]
    return list(dict.fromkeys((a, b) for a, b in pairwise(terms) if a != b))


def joined_forms(query: str, pairs: Sequence[tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """Each pair's two words written as one (`tide gauge` → `tidegaug`, as a `TideGauge` page says them), by
    that form's stem: the closest two words can stand."""
    wanted = set(pairs)
    words = _WORD.findall(bounded_query(query).lower())
    return {stem(x + y): (stem(x), stem(y)) for x, y in pairwise(words) if (stem(x), stem(y)) in wanted}


@lru_cache(maxsize=1024)
def _pattern(terms: frozenset[str]) -> tuple[re.Pattern[str], bool]:
    """Words that may stem to one of the terms: each stem's start less its last letter (`tabl` → `tab…`), as
    inflections change the end (`onli` ← `only`, `comput` ← `computed`); and whether the caller keeps only the
    matches that start a word.

    Heads of word characters only are found without the leading `\\b`, which keeps the regex engine from
    skipping ahead to the heads' first letters (it tried every position: 40% of the scan); a match inside a
    word runs to that word's end and is dropped, so the same words are found.
    """
    heads = {(t[:-1] if t.endswith("i") and len(t) > 2 else t)[: max(3, len(t) - 1)] for t in terms}
    words = "|".join(map(re.escape, sorted(heads, key=len, reverse=True)))
    if all(_WORD.fullmatch(h) for h in heads):
        return re.compile(rf"(?:{words})\w*"), True
    return re.compile(rf"\b(?:{words})\w*"), False


def _starts_word(text: str, at: int) -> bool:
    """Whether `at` is where a word starts (`\\b` before a word character)."""
    return at == 0 or not (text[at - 1].isalnum() or text[at - 1] == "_")


def near_pairs(
    text: str, pairs: Sequence[tuple[str, str]], joined: dict[str, tuple[str, str]] | None = None
) -> set[tuple[str, str]]:
    """The pairs whose two terms stand within NEAR_WORDS words of each other, in either order, in the text, or
    as one word (`joined`: joined_forms)."""
    joined = joined or {}
    wanted = {t for pair in pairs for t in pair}
    if not wanted:
        return set()
    pattern, filtered = _pattern(frozenset(wanted | joined.keys()))
    low = text.lower()
    hits = [
        (m.start(), m.end(), s)
        for m in pattern.finditer(low)
        if (not filtered or _starts_word(low, m.start()))
        and ((s := stem(m.group(0))) in wanted or s in joined)
    ]
    ordered = set(pairs)
    found = {joined[s] for _, _, s in hits if s in joined}
    for i, (_, end, first) in enumerate(hits):
        for start, _, second in hits[i + 1 : i + 1 + _LOOKAHEAD]:
            if start - end > _SPAN:
                break
            pair = (first, second) if (first, second) in ordered else (second, first)
            if first != second and pair in ordered and len(_WORD.findall(text, end, start)) <= NEAR_WORDS:
                found.add(pair)
    return found


def closeness(
    reads: Reads,
    query: str,
    head: Iterable[int],
    found: Evidence,
    idf: dict[str, float],
) -> dict[int, float]:
    """Per head page: the IDF share of the query's adjacent pairs that its best sections hold near (0.0 if none).

    Only pairs of the ranker's own terms count (`idf`'s keys: not the site's name, `java se` on Javadoc, which
    every page says and whose many places would cost the most to scan).
    """
    pairs = [(a, b) for a, b in query_pairs(query) if {a, b} <= idf.keys()]
    joined = joined_forms(query, pairs)
    weight = {p: idf[p[0]] + idf[p[1]] for p in pairs}
    total = sum(weight.values())
    wanted = {pid: found.sections.get(pid, [])[:PROXIMITY_SECTIONS] for pid in head}
    if not total or not any(wanted.values()):
        return {}
    texts: dict[int, list[str]] = {}
    for row in reads.section_rows([sid for sids in wanted.values() for sid in sids]):
        # A defined name holds its words together as a sentence does, qualified by the page's subject (the
        # first word of its title): `Path.glob` on `pathlib — …` is `pathlib Path.glob`.
        subject = found.titles.get(row.page_id, ("",))[0].split(" ", 1)[0]
        names = "\n".join(f"{subject} {name}" for name in row.names.splitlines())
        texts.setdefault(row.page_id, []).append(f"{row.title}\n{names}\n{row.text[:_TEXT_CHARS]}")
    out = {}
    for pid, parts in texts.items():
        check()  # up to 100,000 chars of each section read
        held = set().union(*(near_pairs(t, pairs, joined) for t in parts))
        out[pid] = sum(weight[p] for p in held) / total
    return out


def closer_first(
    reads: Reads,
    query: str,
    combined: dict[int, float],
    found: Evidence,
    idf: dict[str, float],
) -> dict[int, float]:
    """The scores with PROXIMITY_BONUS × closeness added to the PROXIMITY_HEAD best pages'."""
    head = sorted(combined, key=lambda p: -combined[p])[:PROXIMITY_HEAD]
    near = closeness(reads, query, head, found, idf)
    return {pid: score + PROXIMITY_BONUS * near.get(pid, 0.0) for pid, score in combined.items()}
