"""snippets: short, query-centred excerpts for search results."""

from __future__ import annotations

import pytest

from docs_mcp.search.site.snippets import snippet
from docs_mcp.settings import SNIPPET_CHARS

FILLER = " ".join(
    f"Gauge {n} reports water levels every few minutes and values are stored as they arrive."
    for n in range(12)
)
MATCH = "The retention policy deletes expired segments after thirty days."
LONG = f"{FILLER} {MATCH} {FILLER}"


def body(s: str) -> str:
    """The snippet without its ellipses."""
    return s.removeprefix("…").removesuffix("…")


def test_snippet_fits_the_budget():
    assert SNIPPET_CHARS == 300
    for query in ("retention policy", "gauges", "zyzzyva", ""):
        assert len(snippet(LONG, query)) <= SNIPPET_CHARS, query


def test_snippet_is_centred_on_a_match_deep_in_the_text():
    out = snippet(LONG, "retention policy expired segments")
    assert MATCH in out
    assert out.startswith("…") and out.endswith("…")


def test_snippet_matches_inflected_forms_of_the_query():
    out = snippet(LONG, "delete expiring segment")
    assert "deletes expired segments" in out


def test_snippet_prefers_the_window_with_the_most_distinct_terms():
    text = f"Retention is mentioned here alone. {FILLER} {MATCH} {FILLER}"
    assert "Retention is mentioned" not in snippet(text, "retention policy expired")
    assert MATCH in snippet(text, "retention policy expired")


def test_snippet_without_a_match_is_the_beginning():
    out = snippet(LONG, "zyzzyva")
    assert out.startswith("Gauge 0 reports water levels") and out.endswith("…")


def test_snippet_of_a_short_text_is_the_whole_text_normalized():
    assert snippet("  Short   text\n\nhere. ", "anything") == "Short text here."


def test_snippet_at_the_end_has_only_a_leading_ellipsis():
    out = snippet(f"{FILLER} Final words about happy endings.", "happiness")
    assert out.endswith("Final words about happy endings.")
    assert out.startswith("…")


@pytest.mark.parametrize("query", ["retention policy", "zyzzyva", "thirty days", "arrive"])
def test_snippet_cuts_between_whole_words(query):
    text = " ".join(LONG.split())
    inner = body(snippet(LONG, query))
    at = text.index(inner)
    assert at == 0 or text[at - 1] == " ", inner[:20]
    end = at + len(inner)
    assert end == len(text) or text[end] == " ", inner[-20:]


def test_snippet_is_centred_on_a_japanese_term_inside_a_run():
    filler = "Tidepool は潮汐と海洋の観測データを扱うための Python ライブラリです。" * 8
    text = filler + "このライブラリでは潮位データを読み込むには load 関数を使います。" + filler
    assert "潮位データを読み込む" in snippet(text, "潮位データ")


def test_snippet_is_centred_on_a_half_width_katakana_term_inside_a_run():
    # Half-width katakana (ｶﾀｶﾅ, U+FF66-FF9F) is CJK like the rest: its bigrams match inside a run.
    filler = "Tidepool は潮汐と海洋の観測データを扱うための Python ライブラリです。" * 8
    text = filler + "このライブラリのﾃﾞｰﾀﾍﾞｰｽ設定は load 関数で読み込みます。" + filler
    out = snippet(text, "ﾃﾞｰﾀﾍﾞｰｽ")
    assert "ﾃﾞｰﾀﾍﾞｰｽ設定" in out
    assert out.startswith("…")


def test_a_longer_snippet_holds_what_the_shorter_one_showed():
    # The start is picked by the same window whatever the size: a bigger one only runs on further.
    gap = "tide gauges " * 10  # 120 chars: two terms fit in 200 chars, three only in 300
    text = f"{FILLER} retention policy {FILLER} expired {gap}segments {gap}compaction {FILLER}"
    for query in ("retention policy expired segments compaction", "retention", "zyzzyva"):
        short, long = body(snippet(text, query, 200)), body(snippet(text, query, 300))
        assert short in long and len(long) > len(short), query
