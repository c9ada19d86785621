"""analysis: the tokens shared by the site index and in-page ranking."""

from __future__ import annotations

from docs_mcp.analysis import cjk_bigrams, index_text, query_terms, tokenize


def test_tokenize_stems_english_words():
    assert tokenize("directories") == tokenize("directory") == ["directori"]
    assert tokenize("Running runs") == ["run", "run"]


def test_tokenize_lowercases():
    assert tokenize("HTTPServer TideSeries") == ["httpserver", "tideseri"]


def test_tokenize_splits_identifiers_on_punctuation():
    assert tokenize("os.makedirs(path)") == ["os", "makedir", "path"]
    assert tokenize("snake_case") == ["snake", "case"]


def test_tokenize_keeps_an_apostrophe_inside_a_word():
    assert tokenize("don’t stop") == tokenize("don't stop") == ["don't", "stop"]


def test_cjk_run_becomes_overlapping_bigrams():
    assert tokenize("潮位データ") == ["潮位", "位デ", "デー", "ータ"]


def test_cjk_single_character_stays_whole():
    assert cjk_bigrams("潮") == ["潮"]


def test_mixed_latin_and_cjk():
    assert tokenize("load 関数") == ["load", "関数"]


def test_index_text_is_the_tokens_space_separated():
    assert index_text("Loading directories") == "load directori"


def test_query_terms_drop_stopwords():
    assert query_terms("how do I use the load function") == ["load", "function"]


def test_query_terms_keep_something_when_the_query_is_only_stopwords():
    assert query_terms("what is it") == ["what", "is", "it"]


def test_query_terms_are_distinct_and_in_order():
    assert query_terms("load loads loading save") == ["load", "save"]


def test_query_terms_drop_single_letters_but_keep_single_cjk_characters():
    assert query_terms("x resample") == ["resampl"]
    assert query_terms("潮 x resample") == ["潮", "resampl"]


def test_query_terms_of_a_japanese_question():
    assert query_terms("潮位データの読み込み")[:4] == ["潮位", "位デ", "デー", "ータ"]
