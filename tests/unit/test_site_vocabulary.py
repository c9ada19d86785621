"""When search_docs calls a match weak (issue 42 item 4): its two views of the site, words and meaning,
disagree, or both are weak; only then does it name the site's own terms."""

from __future__ import annotations

from docs_mcp.search.site.safety import Holding
from docs_mcp.search.site.vocabulary import views

#: Which page holds which of the query's phrases (a real lookup over plain data, as the store's would be).
HELD = {"isol": {1, 2}, "packag": {1, 2, 3}, "virtualenv": set(), "pip": set()}


def holding() -> Holding:
    return Holding(lambda phrase, ids: [p for p in ids if p in HELD.get(phrase, set())])


def test_words_and_meaning_that_agree_on_a_page_holding_the_query_are_not_weak():
    seen = views(["isol", "packag"], {1: 9.0, 2: 5.0, 3: 1.0}, {1: 0.7, 2: 0.5, 4: 0.4}, holding())
    assert (seen.disagree, seen.held) == (False, 1.0) and not seen.weak


def test_views_whose_best_pages_are_each_missing_from_the_others_top_pages_are_weak():
    seen = views(["isol", "packag"], {1: 9.0, 2: 5.0, 3: 1.0}, {7: 0.8, 8: 0.7, 9: 0.6}, holding())
    assert seen.disagree and seen.held == 1.0 and seen.weak


def test_missing_words_are_weak_only_when_no_page_is_near_in_meaning():
    lexical = {1: 9.0, 2: 5.0}
    far = views(["virtualenv", "pip", "packag"], lexical, {1: 0.2, 2: 0.1}, holding())
    near = views(["virtualenv", "pip", "packag"], lexical, {1: 0.95, 2: 0.1}, holding())
    assert far.held == near.held == 1 / 3
    assert far.weak and not near.weak


def test_without_a_model_the_words_alone_decide():
    assert views(["virtualenv", "pip"], {1: 9.0, 2: 5.0}, {}, holding()).weak
    assert not views(["isol", "packag"], {1: 9.0, 2: 5.0}, {}, holding()).weak


def test_a_query_of_one_selective_word_is_never_weak():
    assert not views(["virtualenv"], {1: 9.0}, {7: 0.1}, holding()).weak
