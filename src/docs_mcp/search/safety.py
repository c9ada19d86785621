"""Rank safety in site search: what the blend of signals may never do to a page holding the query as written.

The semantic blend and the keyword bridge can lift pages that hold none of the query's words (nearest by
meaning, or filed under them by the site's index). They must never push below those pages one that holds every
word of the query as written, and a query naming an identifier (`snake_case`, `Type::method`, `--option`,
`CONSTANT`) lists the pages holding it exactly first. How much the cosine counts depends on the query too: a
few terms of the site's vocabulary are what the agent means word for word; a sentence is worded its own way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from docs_mcp.settings import MAX_QUERY_TERMS, SEMANTIC_WEIGHT
from docs_mcp.text.stopwords import STOPWORDS
from docs_mcp.text.terms import bare_token, bounded_query, tokenize

#: An identifier as an agent types it: snake_case, a qualified name (`Type::method`, `os.path`, `obj->field`),
#: a command-line option (`--option`, `-O`), or a CONSTANT with a digit or an underscore (`O_RDONLY`, `EPOLL2`;
#: a bare capitalised word is as often an SQL keyword or an acronym: `DELETE`, `HTTP`).
_IDENTIFIER = re.compile(
    r"[A-Za-z]\w*_\w+|[A-Za-z_]\w*(?:(?:::|->|\.|#)[A-Za-z_]\w*)+|--?[A-Za-z][\w-]*|[A-Z]+[0-9][A-Z0-9]*"
)
#: A word of the query (the tokenizer's words, apostrophes kept) for telling terms from a sentence.
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
#: A query with this many stopwords, or ending in a question mark, is a sentence; fewer, a list of terms.
SENTENCE_STOPWORDS = 2
#: The cosine's weight in search_docs' blend for a query of terms (a sentence's is settings.SEMANTIC_WEIGHT):
#: the agent typed the site's own words, so the pages holding them count more than the nearest by meaning.
SEMANTIC_TERMS_WEIGHT = 0.6


@dataclass(frozen=True)
class WrittenQuery:
    """The query's content words as written, each as the phrase of its index tokens (`lru_cache` → `lru
    cache`), and which of them are identifiers whose holders rank first (none in a sentence)."""

    phrases: tuple[str, ...]
    identifiers: frozenset[str]


def written_query(query: str, selective: Iterable[str] | None = None) -> WrittenQuery:
    """The phrases a page must hold to hold the query as written; stopwords left out unless nothing else is
    left, a word repeated counted once. With `selective` (the query's terms the site does not hold nearly
    everywhere, scoring.selective_terms), only phrases with such a term: a word most pages hold tells none
    apart, and its postings are most of a lookup's cost (JDK 17's Javadoc: `java`, `class`)."""
    phrases: dict[str, bool] = {}
    fallback: dict[str, bool] = {}
    for raw in bounded_query(query).split():
        token = bare_token(raw)
        identifier = _IDENTIFIER.fullmatch(token) is not None and _parts_are_words(token)
        phrase = " ".join(tokenize(token))
        if not phrase:
            continue
        content = identifier or any(w not in STOPWORDS for w in _WORD.findall(token.lower()))
        target = phrases if content else fallback
        target[phrase] = target.get(phrase, False) or identifier
        if len(phrases) == MAX_QUERY_TERMS:
            break
    chosen = phrases or fallback
    if selective is not None:
        rare = set(selective)
        chosen = {p: ident for p, ident in chosen.items() if rare.intersection(p.split())}
    # In a sentence an identifier is as often the symptom as the subject (`request.is_secure() returns
    # False behind a proxy`: the answer is a setting's page): only a query of terms puts its holders first.
    named = frozenset(p for p, ident in chosen.items() if ident) if not is_sentence(query) else frozenset()
    return WrittenQuery(tuple(chosen), named)


def _parts_are_words(token: str) -> bool:
    """`e.g`, `i.e` and `O(n)`-like bits are not identifiers: every part of a qualified name has 2+ chars."""
    if token.startswith("-"):
        return True
    return all(len(p) >= 2 for p in re.split(r"::|->|\.|#", token))


def is_sentence(query: str) -> bool:
    """Whether a query is worded as a sentence (its stopwords, a question mark) rather than typed as terms."""
    words = _WORD.findall(query.lower())
    return query.rstrip().endswith("?") or sum(w in STOPWORDS for w in words) >= SENTENCE_STOPWORDS


def semantic_weight(query: str) -> float:
    """The cosine's weight in the blend: SEMANTIC_WEIGHT for a sentence, SEMANTIC_TERMS_WEIGHT for terms."""
    return SEMANTIC_WEIGHT if is_sentence(query) else SEMANTIC_TERMS_WEIGHT


class Holding:
    """`pages_holding` for one search, each (phrase, page) looked up once: the coverage bonus and rank safety
    ask about the same words and pages (each lookup reads the word's postings: ~0.2-1 ms on JDK 17's Javadoc)."""

    def __init__(self, lookup: Callable[[str, list[int]], Iterable[int]]):
        self.lookup = lookup
        self.known: dict[
            str, tuple[set[int], set[int]]
        ] = {}  # phrase → (pages asked about, pages holding it)

    def __call__(self, phrase: str, ids: list[int]) -> list[int]:
        asked, held = self.known.setdefault(phrase, (set(), set()))
        new = [pid for pid in ids if pid not in asked]
        if new:
            held.update(self.lookup(phrase, new))
            asked.update(new)
        return [pid for pid in ids if pid in held]


def exact_first(
    combined: dict[int, float],
    written: WrittenQuery,
    holding: Callable[[str, list[int]], Iterable[int]],
) -> dict[int, float]:
    """The ranking with its safety rules applied: pages holding an identifier of the query first, and no page
    holding none of its phrases above a page holding all of them. `holding(phrase, ids)` gives those of the
    pages whose text holds the phrase. Scores are kept where the order stands, lowered just enough elsewhere."""
    if not written.phrases or len(combined) < 2:
        return combined
    ids = sorted(combined)
    held: dict[int, int] = dict.fromkeys(ids, 0)
    idents: dict[int, int] = dict.fromkeys(ids, 0)
    for phrase in written.phrases:
        for pid in holding(phrase, ids):
            held[pid] += 1
            idents[pid] += phrase in written.identifiers
    order = sorted(combined, key=lambda p: -combined[p])
    if written.identifiers:
        order.sort(key=lambda p: not idents[p])  # stable: each tier keeps its order
    whole = [i for i, p in enumerate(order) if held[p] == len(written.phrases)]
    if whole:
        head, tail = order[: whole[-1] + 1], order[whole[-1] + 1 :]
        order = [p for p in head if held[p]] + [p for p in head if not held[p]] + tail
    out: dict[int, float] = {}
    previous = float("inf")
    for pid in order:
        previous = min(combined[pid], previous - 1e-6)
        out[pid] = previous
    return out
