"""Names a query spells as words: the adjacent pairs taken, and which defined names they match."""

from __future__ import annotations

from docs_mcp.search.site.spaced import SpacedNames
from docs_mcp.text.terms import spaced_names


def test_adjacent_content_words_pair_up_and_function_words_break_the_pairs():
    assert spaced_names("json dumps sort keys and indent") == [
        ("json", "dumps"),
        ("dumps", "sort"),
        ("sort", "keys"),
    ]
    assert spaced_names("how do I use re sub") == [("re", "sub")]
    assert spaced_names("glob glob") == []  # a word twice names no member of itself


def test_a_name_matches_by_its_last_part_preferring_one_that_holds_both_words():
    spaced = SpacedNames("datetime isoformat")
    assert spaced.phrases == ["isoformat"]
    assert spaced.match("date.isoformat\ntime.isoformat") == ("datetime", False)
    assert spaced.match("date.isoformat\ndatetime.isoformat") == ("datetime", True)
    assert spaced.match("datetime.datetime.isoformat") == ("datetime", True)
    assert spaced.match("isoformat\ndatetime.now") is None  # unqualified, or another last part


def test_a_query_of_one_word_spells_no_name():
    assert not SpacedNames("isoformat") and SpacedNames("isoformat").match("date.isoformat") is None
