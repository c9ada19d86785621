"""Names a query spells as words: the adjacent pairs taken, and which defined names they match."""

from __future__ import annotations

import pytest

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


def test_a_name_holds_both_words_only_as_whole_dotted_parts_before_its_last_one():
    spaced = SpacedNames("ab cd")
    assert spaced.match("x.ab.y.cd") == ("ab", True)  # any parts between
    assert spaced.match("AB.CD") == ("ab", True)  # as the site cases them
    assert spaced.match("xab.cd\nabx.cd\nab.cdx") == ("ab", False)  # `ab` inside a part, or `cd` not the last
    assert spaced.match("cd.ab.cd") == ("ab", True)
    assert spaced.match("ab\n.cd") == ("ab", False)  # a name is one line


@pytest.mark.timeout(20)
def test_a_page_controlled_name_of_a_million_dotted_parts_is_matched_in_one_pass():
    # `(?:^|\.)ab\.(?:[^\n]*\.)?cd$` backtracked from every `ab.` of a name: a 192 KB one took 35 s of CPU, this
    # one would take hours; a split is linear, so this test ends in well under a second.
    spaced = SpacedNames("ab cd")
    names = "ab." * 350_000 + "x\nzz.cd"
    assert spaced.match(names) == ("ab", False)
