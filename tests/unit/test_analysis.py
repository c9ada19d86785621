"""analysis: the tokens shared by the site index and in-page ranking."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from docs_mcp.settings import MAX_QUERY_CHARS, MAX_QUERY_TERMS
from docs_mcp.text.terms import (
    NameMatcher,
    bounded_query,
    cjk_bigrams,
    index_text,
    names_match,
    query_literals,
    query_names,
    query_terms,
    tokenize,
)


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


def test_query_terms_drop_question_quantifiers_and_contractions():
    assert query_terms("How many times does timeit run by default?") == ["time", "timeit", "run", "default"]
    assert query_terms("why don't I see warnings") == ["see", "warn"]
    assert query_terms("why don’t I see warnings") == ["see", "warn"]  # typographic apostrophe


def test_query_names_are_qualified_called_snake_case_names_and_options():
    assert query_names("Why does round(2.5) return 2 after logging.basicConfig()?") == [
        "round",
        "logging.basicConfig",
    ]
    assert query_names("lru_cache default maxsize with python -O and --system-site-packages") == [
        "lru_cache",
        "-O",
        "--system-site-packages",
    ]
    assert query_names("Counter missing key KeyError or zero") == []  # CamelCase alone is left to BM25
    assert query_names("what does `-O` do (and -W)") == ["-O", "-W"]
    assert query_names("re-use a well-known name") == []


def test_query_literals_are_operators_and_syntax_as_written_not_words_names_or_options():
    assert query_literals("what do ~+ and ~- expand to?") == ["~+", "~-"]
    assert query_literals('why does cmd 2>&1 >file print, unlike "=~".') == ["2>&1", ">file", "=~"]
    assert query_literals("A..B vs A...B; is :: or -> an operator? x.(T) too") == [
        "A..B",
        "A...B",
        "::",
        "->",
        "x.(T)",
    ]
    # Words, dotted names, versions, paths, options and sentence punctuation are not literals.
    assert query_literals("Why does os.path.join(a) in 3.11 do I/O, with --jobs or -e? Really.") == []
    assert query_literals("a b c d e f g h".replace(" ", " $x ")) == ["$x"]  # each literal once


def test_query_literals_leave_abbreviations_addresses_and_sentence_punctuation_out():
    assert query_literals("search a pattern, e.g., with a filter (i.e., grep etc.)") == []
    assert query_literals("see http://example.org/a.html or me@example.org, with --jobs=4") == []
    assert query_literals("difference between $* and $@? is =~, or ==?!") == ["$*", "$@", "=~", "=="]
    assert query_literals("what does ?: mean, and ...?") == ["?:", "..."]
    assert query_literals("utcnow()? or exit().") == ["utcnow()", "exit()"]
    assert query_literals("A...B vs ...") == ["A...B"]  # `...` is inside `A...B`: counted once


def test_query_names_skip_abbreviations_urls_and_file_names():
    assert query_names("e.g. O(n) see docs.python.org/3/library/time.html and config.yaml") == []


def test_names_match_the_name_or_a_qualified_form_of_it():
    assert names_match("importlib.reload", "reload")
    assert names_match(
        "GaugeReader.validate", "tidepool.io.GaugeReader.validate"
    )  # method shown in its class
    assert not names_match("join", "os.path.join")  # a bare name is too loose to match a qualified one
    assert names_match("time.sleep", "TIME.SLEEP")
    assert not names_match("fractions.Fraction.__round__", "round")
    assert not names_match("timeout", "time")


@settings(max_examples=400, deadline=None)
@given(
    defined=st.lists(st.from_regex(r"[A-Za-z_.\-]{0,12}( arg)?", fullmatch=True), max_size=6),
    wanted=st.lists(
        st.from_regex(r"(--?)?[A-Za-z_]{1,4}(\.[A-Za-z_]{1,4}){0,3}", fullmatch=True), min_size=1, max_size=3
    ),
)
def test_the_name_matcher_agrees_with_names_match_on_every_pair(defined, wanted):
    # Near misses and qualified forms of the wanted names too, so that matches are not rare.
    near = [f(w) for w in wanted for f in (lambda w: "pkg." + w, lambda w: w.split(".")[-1], str.upper)]
    names = "\n".join(defined[:3] + near[: len(defined)] + defined[3:])
    expected = any(names_match(n, w) for n in names.split("\n") for w in wanted)
    assert NameMatcher(wanted).any_in(names) == expected


def test_option_names_match_case_sensitively_and_through_aliases():
    assert names_match("-h, --help", "--help")
    assert names_match("-W arg", "-W")
    assert names_match("--foo[=VALUE]", "--foo")
    assert not names_match("-o", "-O")


def test_query_terms_are_capped_at_max_query_terms_distinct_terms():
    query = " ".join(f"gauge{n}x" for n in range(5_000))
    terms = query_terms(query)
    assert len(terms) == MAX_QUERY_TERMS and terms[:2] == ["gauge0x", "gauge1x"]


def test_a_query_is_cut_to_max_query_chars_before_its_terms_are_read():
    query = "tide " * (MAX_QUERY_CHARS // 5) + "zyzzyva"
    assert "zyzzyva" not in query_terms(query) and len(bounded_query(query)) <= MAX_QUERY_CHARS
    assert bounded_query("short query") == "short query"
    assert not bounded_query("x " * 600).endswith(" ")  # cut at a space, not mid-word


def test_query_names_are_capped_too():
    assert len(query_names(" ".join(f"mod.fn{n}()" for n in range(5_000)))) <= MAX_QUERY_TERMS
