"""Rank safety's rules on plain data: phrases as written, identifiers, sentences, and the order they allow."""

from __future__ import annotations

from docs_mcp.search.safety import (
    SEMANTIC_TERMS_WEIGHT,
    exact_first,
    is_sentence,
    semantic_weight,
    written_query,
)
from docs_mcp.settings import SEMANTIC_WEIGHT


def holder(texts: dict[int, str]):
    """`pages_holding` over pages given as their index tokens, phrase by phrase."""

    def holding(phrase: str, ids: list[int]) -> list[int]:
        return [pid for pid in ids if f" {phrase} " in f" {texts[pid]} "]

    return holding


def test_a_query_is_held_as_written_by_the_phrase_of_each_word():
    written = written_query("lru_cache maxsize for `Type::method`")
    assert written.phrases == ("lru cach", "maxsiz", "type method")
    assert written.identifiers == {"lru cach", "type method"}


def test_options_and_constants_with_a_digit_or_underscore_are_identifiers_but_capitalised_words_are_not():
    assert written_query("--dry-run O_RDONLY").identifiers == {"dri run", "o rdon"}
    assert written_query("TRUNCATE DELETE WHERE").identifiers == frozenset()
    assert written_query("e.g. install").identifiers == frozenset()


def test_identifiers_in_a_sentence_are_not_put_first():
    written = written_query("Why does request.is_secure() return False behind my proxy?")
    assert "request is secur" in written.phrases
    assert written.identifiers == frozenset()


def test_a_sentence_gets_the_sentence_weight_and_terms_the_terms_weight():
    assert is_sentence("how do I stop the server from caching pages")
    assert is_sentence("cache size?")
    assert not is_sentence("lru_cache maxsize typed")
    assert semantic_weight("how do I stop the server from caching pages") == SEMANTIC_WEIGHT
    assert semantic_weight("lru_cache maxsize typed") == SEMANTIC_TERMS_WEIGHT


def test_no_page_holding_none_of_the_words_stays_above_one_holding_all():
    texts = {1: "alpha beta", 2: "gamma", 3: "alpha", 4: "delta"}
    combined = {2: 5.0, 4: 4.0, 3: 3.0, 1: 1.0}
    out = exact_first(combined, written_query("alpha beta"), holder(texts))
    assert sorted(out, key=lambda p: -out[p]) == [3, 1, 2, 4]  # the partial holder keeps its place among them
    assert out[3] == 3.0  # scores kept where the order stands


def test_a_page_holding_a_queried_identifier_is_ranked_first():
    texts = {1: "lru cach", 2: "cach size", 3: "lru cach size"}
    combined = {2: 9.0, 3: 2.0, 1: 1.0}
    out = exact_first(combined, written_query("lru_cache size"), holder(texts))
    assert sorted(out, key=lambda p: -out[p]) == [3, 1, 2]


def test_without_any_full_holder_the_order_is_unchanged():
    combined = {1: 3.0, 2: 2.0, 3: 1.0}
    texts = {1: "x", 2: "alpha", 3: "beta"}
    assert exact_first(combined, written_query("alpha beta"), holder(texts)) == combined
