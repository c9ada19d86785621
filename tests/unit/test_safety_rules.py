"""Rank safety's rules on plain data: phrases as written, sentences, and the order they allow."""

from __future__ import annotations

from docs_mcp.search.site.safety import (
    SEMANTIC_TERMS_WEIGHT,
    Holding,
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


def test_a_query_is_held_as_written_by_the_phrase_of_each_content_word():
    assert written_query("lru_cache maxsize of the `Type::method`") == ("lru cach", "maxsiz", "type method")
    assert written_query("the of") == ("the", "of")  # nothing but stopwords: they are the query


def test_only_phrases_with_a_selective_term_are_checked():
    assert written_query("java class HashMap resize", ["hashmap", "resiz"]) == ("hashmap", "resiz")


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


def test_without_any_full_holder_the_order_is_unchanged():
    combined = {1: 3.0, 2: 2.0, 3: 1.0}
    texts = {1: "x", 2: "alpha", 3: "beta"}
    assert exact_first(combined, written_query("alpha beta"), holder(texts)) == combined


def test_each_phrase_and_page_is_looked_up_once_per_search():
    asked: list[tuple[str, list[int]]] = []

    def lookup(phrase: str, ids: list[int]) -> list[int]:
        asked.append((phrase, ids))
        return [i for i in ids if i % 2]

    holding = Holding(lookup)
    assert holding("alpha", [1, 2]) == [1]
    assert holding("alpha", [1, 2, 3]) == [1, 3]
    assert asked == [("alpha", [1, 2]), ("alpha", [3])]
