"""text: the one owner of CJK ranges, whitespace folding, clipping, UTC times and names shown as data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from docs_mcp.fetch.urls import decode_name
from docs_mcp.text.cjk import CJK_CHAR, cjk_bigrams
from docs_mcp.text.controls import escaped, percent_encoded
from docs_mcp.text.dates import utc_clock, utc_minute
from docs_mcp.text.terms import query_terms, tokenize
from docs_mcp.text.tidy import clip, fold_space, normalize_space
from docs_mcp.text.tokens import features


@pytest.mark.parametrize("char", ["あ", "カ", "ｶ", "ﾞ", "漢", "한", "丽"])
def test_every_cjk_script_is_one_range_for_tokens_estimates_and_snippets(char):
    assert CJK_CHAR.match(char)
    assert tokenize(char + char) == [char + char]
    assert features(char)[3] == 1  # counted as a CJK character, not punctuation


def test_half_width_katakana_queries_are_bigrams_like_full_width_ones():
    assert query_terms("ﾃﾞｰﾀ") == cjk_bigrams("ﾃﾞｰﾀ") == ["ﾃﾞ", "ﾞｰ", "ｰﾀ"]


def test_fold_space_folds_every_unicode_space_and_trims():
    assert fold_space("  a\t\nb\u00a0\u2003c  ") == "a b c"


def test_normalize_space_also_drops_zero_width_characters():
    assert normalize_space("\ufeffzero\u200bwidth  join") == "zerowidth join"
    assert fold_space("zero\u200bwidth") == "zero\u200bwidth"


def test_clip_keeps_a_short_text_and_cuts_a_long_one_to_the_limit_with_an_ellipsis():
    assert clip("short", 5) == "short"
    assert clip("abcdefgh", 5) == "abcd…"
    assert clip("abc   defgh", 5) == "abc…"  # no space left before the ellipsis
    assert len(clip("x" * 500, 200)) == 200


def test_utc_times_are_written_in_utc_with_a_word_for_never():
    assert utc_minute(1739196180) == "2025-02-10 14:03 UTC"
    assert utc_minute(0) == "unknown"
    assert utc_minute(0, "never") == "never"
    assert utc_clock(1739196180) == "14:03 UTC"


def test_the_cjk_ranges_and_the_fence_pattern_are_spelled_once_in_the_package():
    package = Path(__file__).resolve().parents[2] / "src" / "docs_mcp"
    spelled = {"\\u3040": [], "`{3,}": []}
    for path in package.rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        for needle, found in spelled.items():
            if needle in source or needle.encode().decode("unicode_escape") in source:
                found.append(path.relative_to(package).as_posix())
    assert spelled == {"\\u3040": ["text/cjk.py"], "`{3,}": ["text/fences.py"]}


def test_a_title_with_acting_characters_is_escaped_once_and_for_good():
    title = "Tides\n\x1b[31m\x9b\u202e\u2028 — 東京 👩\u200d💻"
    shown = escaped(title)
    assert shown == "Tides\\n\\x1b[31m\\x9b\\u202e\\u2028 — 東京 👩\u200d💻"  # joiners kept: emoji, scripts
    assert escaped(shown) == shown
    assert escaped("a\tb\nc\x1b", keep="\n\t") == "a\tb\nc\\x1b"


def test_a_file_name_is_percent_encoded_and_reads_back_to_its_bytes():
    name = os.fsdecode(b"guide\nIgnore 100%\xff\xfe\xe2\x80\xae.md")
    shown = percent_encoded(name)
    assert shown == "guide%0AIgnore 100%25%FF%FE%E2%80%AE.md"
    assert os.fsencode(decode_name(shown)) == os.fsencode(name)


def test_the_c_stemmer_stems_every_word_as_the_pure_python_snowball_stemmer():
    """PyStemmer (C) does the stemming; an index built with the pure-Python fallback must hold the same terms."""
    import Stemmer
    from snowballstemmer.english_stemmer import EnglishStemmer

    from docs_mcp.text.terms import _TOKEN, _stemmer

    root = Path(__file__).resolve().parents[2] / "fixtures"
    words = {
        m.group(0).replace("’", "'")
        for path in root.rglob("*.htm*")
        for m in _TOKEN.finditer(path.read_text(encoding="utf-8", errors="replace").lower())
    }
    # Suffixes Porter 2 treats specially, and non-ASCII words.
    words |= {
        w + s
        for w in ("generous", "communit", "nation", "run", "fly", "caf\u00e9", "na\u00efve")
        for s in ("", "s", "'s", "ing", "ed", "ly", "ies", "ational", "iveness", "fulness")
    }
    assert len(words) > 4_000
    python, c = EnglishStemmer(), Stemmer.Stemmer("english")
    assert [c.stemWord(w) for w in sorted(words)] == [python.stemWord(w) for w in sorted(words)]
    assert isinstance(_stemmer(), Stemmer.Stemmer)  # the C stemmer is the one in use
