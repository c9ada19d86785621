"""Pages that point at the answer yield to it; how far a title is the query."""

from __future__ import annotations

from docs_mcp.search.site.pointers import POINTER_REACH, yielded
from docs_mcp.search.site.scoring import titled_by
from docs_mcp.text.terms import tokenize

#: A package's module list, the module asked for, and two other pages; scores as the blend left them.
SCORES = {1: 3.0, 2: 2.5, 3: 2.0, 4: 1.0}
KEYS = {
    1: "index.html",
    2: "Data-Aeson-Internal.html",
    3: "Data-Aeson-Types.html",
    4: "Data-Aeson-Parser.html",
}
WORDS = ["data", "parser", "internal"]
#: The module page's title is the query; the list's is not.
TITLED = {4: 1.0}


def order(scores: dict[int, float]) -> list[int]:
    return sorted(scores, key=lambda p: -scores[p])


def test_a_listing_yields_to_the_page_its_link_names_with_the_query_words():
    links = {1: {"Data-Aeson-Parser.html": frozenset({"data", "aeson", "parser", "internal"})}}
    assert order(yielded(SCORES, WORDS, links, KEYS, TITLED)) == [4, 1, 2, 3]


def test_a_link_saying_only_some_of_the_words_moves_nothing():
    links = {1: {"Data-Aeson-Parser.html": frozenset({"data", "parser"})}}
    assert yielded(SCORES, WORDS, links, KEYS, TITLED) == SCORES


def test_a_page_no_more_titled_by_the_query_than_the_pointer_stays_below_it():
    links = {1: {"Data-Aeson-Parser.html": frozenset(WORDS)}}
    assert yielded(SCORES, WORDS, links, KEYS, {1: 1.0, 4: 1.0}) == SCORES
    assert yielded(SCORES, WORDS, links, KEYS, {}) == SCORES


def test_two_pages_pointing_at_each_other_with_the_words_keep_their_order():
    links = {
        1: {"Data-Aeson-Parser.html": frozenset(WORDS)},
        4: {"index.html": frozenset(WORDS)},
    }
    assert yielded(SCORES, WORDS, links, KEYS, TITLED) == SCORES


def test_a_page_pointed_at_beyond_the_reach_is_not_lifted():
    scores = {pid: float(1000 - pid) for pid in range(1, POINTER_REACH + 3)}
    keys = {pid: f"p{pid}.html" for pid in scores}
    far = POINTER_REACH + 2
    links = {1: {f"p{far}.html": frozenset(WORDS), "p5.html": frozenset(WORDS)}}
    moved = order(yielded(scores, WORDS, links, keys, {far: 1.0, 5: 1.0}))
    assert moved[:2] == [5, 1] and moved[-1] == far


def test_a_title_that_is_the_query_counts_whole_and_one_with_more_words_less():
    idf = {"errorhandl": 5.0, "class": 1.0, "refer": 1.0}
    terms = list(idf)
    exact = titled_by(terms, idf, frozenset(tokenize("ErrorHandler Class Reference")))
    header = titled_by(terms, idf, frozenset(tokenize("ErrorHandler.hpp File Reference")))
    assert exact == 1.0
    assert 0.0 < header < 0.6
    assert titled_by(terms, idf, frozenset(tokenize("Parser Class Reference"))) < header
