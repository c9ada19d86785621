"""compounds: a run-together name (`HashMap`) found from the words a question spells it with."""

from __future__ import annotations

from docs_mcp.text.compounds import compound_terms
from docs_mcp.text.terms import stem, tokenize


def test_adjacent_words_join_into_the_term_a_run_together_name_is_indexed_as():
    assert compound_terms("hash map") == tokenize("HashMap")
    assert compound_terms("thread-local") == tokenize("ThreadLocal")
    terms = compound_terms("let the thread pool executor share it")
    assert tokenize("ThreadPoolExecutor")[0] in terms and "threadpool" in terms


def test_stopwords_contractions_and_single_letters_are_never_joined():
    assert compound_terms("is b <= c evaluated") == []
    assert not [t for t in compound_terms("let the thread run") if "the" in t]
    assert compound_terms("why don't tides wait") == [stem("tideswait")]
