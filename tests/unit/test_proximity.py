"""Closeness of adjacent query words in a section's text (search/site/proximity.py)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from docs_mcp.search.site.proximity import NEAR_WORDS, _pattern, _starts_word, near_pairs, query_pairs


def test_query_pairs_are_adjacent_content_terms_stemmed_once_each():
    assert query_pairs("why does my signal trap only run after the foreground command?") == [
        ("signal", "trap"),
        ("trap", "run"),
        ("run", "foreground"),
        ("foreground", "command"),
    ]
    assert query_pairs("trap") == []
    assert query_pairs("trap trap") == []


def test_two_query_words_near_each_other_in_either_order_and_inflected_are_found():
    pairs = [("signal", "trap"), ("foreground", "command")]
    text = "A trap set on a signal runs once the command in the foreground has finished."
    assert near_pairs(text, pairs) == {("signal", "trap"), ("foreground", "command")}
    assert near_pairs("Signals are TRAPPED by the shell.", pairs) == {("signal", "trap")}


def test_words_further_apart_than_near_words_do_not_count():
    gap = " ".join(["word"] * NEAR_WORDS)
    assert near_pairs(f"signal {gap} trap", [("signal", "trap")]) == {("signal", "trap")}
    assert near_pairs(f"signal {gap} more trap", [("signal", "trap")]) == set()
    assert near_pairs("signal only here", [("signal", "trap")]) == set()


def test_a_word_that_only_starts_like_a_term_is_not_that_term():
    # `tables` stems to `tabl`; `tableau` does not, though it starts the same.
    assert near_pairs("a tableau of columns", [("tabl", "column")]) == set()
    assert near_pairs("tables of columns", [("tabl", "column")]) == {("tabl", "column")}


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="tabl sort keyé_ -.'x", max_size=60), st.sampled_from(["tabl", "sort", "key", "t"]))
def test_the_words_a_pattern_finds_start_words_as_with_a_leading_word_boundary(text, term):
    # Heads of word characters are matched without `\b` (the engine then skips to their first letters), and
    # matches inside a word dropped: the same words as `\b(?:…)\w*` finds, wherever the text's words start.
    pattern, filtered = _pattern(frozenset({term, "sort"}))
    found = [m.span() for m in pattern.finditer(text) if not filtered or _starts_word(text, m.start())]
    reference = re.compile(r"\b" + pattern.pattern.removeprefix(r"\b"))
    assert found == [m.span() for m in reference.finditer(text)]
