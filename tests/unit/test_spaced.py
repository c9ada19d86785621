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


def test_a_last_word_the_site_holds_nearly_everywhere_finds_no_candidates():
    # "java" and "class" are in most of a Javadoc's sections: their postings name no one definition.
    spaced = SpacedNames("java lang class hierarchy", selective=["hierarchi"])
    assert spaced.phrases == ["hierarchi"]
    assert not SpacedNames("java class", selective=["java"])  # its one last word, "class", is common
    assert SpacedNames("java class").phrases == ["class"]  # without the site's counts: every pair's last word
