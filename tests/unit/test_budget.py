"""budget: clamping sizes, cutting at natural boundaries, exact pagination over every fixture page."""

from __future__ import annotations

import asyncio
import functools

import pytest
from conftest import SITE, make_tools, run

from docs_mcp.settings import BOUNDARY_WINDOW, DEFAULT_MAX_LENGTH
from docs_mcp.text.budget import (
    _SENTENCE_END,
    boundary_cut,
    finish_sentence,
    last_sentence_start,
    paginate,
    truncate,
    window_length,
)
from docs_mcp.text.fences import open_fence, open_fence_line

PAGES = sorted(p.relative_to(SITE).as_posix() for p in SITE.rglob("*") if p.suffix in (".html", ".md"))
BIG = {"big-reference.html"}  # seconds per variant: the quick run leaves it out


@functools.cache
def page_markdown(name: str, include_code: bool) -> str:
    return asyncio.run(make_tools(str(SITE)).document(name))[1].markdown(include_code)


def cut(text: str, limit: int = 1000, start: int = 0) -> str:
    """The text of the window boundary_cut chooses."""
    return text[start : boundary_cut(text, start, limit)]


# --- window_length -----------------------------------------------------------------------------
def test_a_window_of_zero_is_the_hard_cap():
    assert window_length(0, 20_000) == 20_000


def test_a_default_above_a_lower_cap_is_the_cap():
    assert window_length(DEFAULT_MAX_LENGTH, 3000) == 3000


def test_a_window_within_the_cap_is_as_asked():
    assert window_length(1234, 20_000) == 1234


# --- boundary_cut ------------------------------------------------------------------------------
def test_cut_prefers_a_paragraph_break_over_a_later_line_break():
    text = "a" * 850 + "\n\n" + "b" * 50 + "\n" + "c" * 50 + ". " + "d" * 500
    assert cut(text) == "a" * 850 + "\n\n"


def test_cut_falls_back_to_a_line_break():
    text = "a" * 850 + "\n" + "b" * 50 + ". " + "c" * 20 + " " + "d" * 500
    assert cut(text) == "a" * 850 + "\n"


def test_cut_falls_back_to_a_sentence_end_over_a_later_space():
    text = "a" * 850 + ". " + "b" * 30 + " " + "c" * 500
    assert cut(text) == "a" * 850 + "."


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        ".",
        ". ",
        "One.",
        "One. Two",
        "One. Two. ",
        "v3.11 is out. See os.path.join",
        "a.\u00a0b",
        "a?\tb. c.",
        "一。二",
        "一。",
        "Wait! what? no",
        "x.y.z",
        "One.  \n ",
    ],
)
def test_the_last_sentence_starts_after_the_last_sentence_end_the_regex_finds(text):
    # Looked for from the end with str.rfind; the regex over the whole text says the same.
    ends = [m.end() for m in _SENTENCE_END.finditer(text) if m.end() < len(text.rstrip())]
    assert last_sentence_start(text) == (ends[-1] if ends else 0)


def test_cut_treats_the_japanese_full_stop_as_a_sentence_end():
    text = "あ" * 850 + "。" + "い" * 500
    assert cut(text) == "あ" * 850 + "。"


def test_cut_falls_back_to_a_space():
    text = "a" * 850 + " " + "b" * 500
    assert cut(text) == "a" * 850 + " "


def test_cut_looks_for_boundaries_only_in_the_last_window_chars():
    assert BOUNDARY_WINDOW == 200
    text = "a" * 700 + "\n\n" + "b" * 1000  # the break is 298 chars before the limit: too far back
    assert boundary_cut(text, 0, 1000) == 1000


def test_cut_is_hard_when_there_is_no_boundary():
    assert boundary_cut("x" * 2000, 0, 1000) == 1000


def test_cut_is_relative_to_the_start():
    text = "a" * 1250 + "\n\n" + "b" * 1000
    assert boundary_cut(text, 300, 1000) == 1252


def test_cut_past_the_end_returns_the_end():
    assert boundary_cut("short text", 0, 1000) == len("short text")
    assert boundary_cut("a" * 100, 50, 50) == 100


def test_cut_moves_before_a_fence_that_would_be_left_open():
    text = "p" * 700 + "\n\n```python\n" + "code line\n" * 60 + "```\n\nafter\n"
    window = cut(text)
    assert window == "p" * 700 + "\n\n"
    assert "```" not in window


def test_cut_keeps_a_fence_that_closes_inside_the_window():
    text = "intro\n\n```python\nx = 1\n```\n\n" + "word " * 400
    window = cut(text)
    assert "```python\nx = 1\n```" in window
    assert open_fence(window) is None


def test_cut_inside_a_block_larger_than_the_limit_keeps_the_fence_it_opened():
    text = "```\n" + "line\n" * 500 + "```\n"
    window = cut(text)
    assert 800 < len(window) <= 1000 and window.startswith("```\nline\n")
    assert open_fence(window) == "```"  # unavoidable: the caller is told which fence to close


def test_a_backtick_line_inside_a_tilde_fence_does_not_close_it():
    text = "Write a fence:\n\n~~~markdown\n```python\nx = 1\n"
    assert open_fence(text) == "~~~"
    assert open_fence(text + "```\n") == "~~~"
    assert open_fence(text + "```\n~~~\n") is None


def test_a_fence_closes_only_on_a_bare_line_at_least_as_long():
    assert open_fence("````\n```\n") == "````"
    assert open_fence("```\n```python\n") == "```"  # an info string makes it an opening, not a close
    assert open_fence("```\nx\n`````\n") is None
    assert open_fence("```a``` is inline code\n") is None


def test_cut_moves_before_a_tilde_fence_holding_a_backtick_fence():
    text = "p" * 700 + "\n\n~~~markdown\n```python\n" + "code line\n" * 60 + "```\n~~~\n\nafter\n"
    window = cut(text)
    assert window == "p" * 700 + "\n\n"
    assert open_fence(window) is None


# --- finish_sentence ---------------------------------------------------------------------------
def finished(text: str, cut_after: str, reach: int = 100) -> str:
    """The text up to where finish_sentence moves a cut made just after `cut_after`."""
    return text[: finish_sentence(text, text.index(cut_after) + len(cut_after), reach)]


def test_finish_sentence_runs_on_to_the_full_stop():
    assert finished("The limit is the maximum\nnumber of rows. Then more.", "maximum") == (
        "The limit is the maximum\nnumber of rows."
    )


def test_finish_sentence_stops_at_a_colon_after_a_word_but_not_at_a_definition_marker():
    assert finished("Options are\nlisted here: a, b.", "are") == "Options are\nlisted here:"
    assert finished("`port` (`integer`)\n:   The TCP port. More.", "(`integer`)") == (
        "`port` (`integer`)\n:   The TCP port."
    )


def test_finish_sentence_stops_at_a_paragraph_break_before_it():
    assert finished("A heading-like line\n\nNext paragraph.", "line") == "A heading-like line"


def test_finish_sentence_finds_a_full_stop_at_the_very_end_of_the_text():
    assert finished("The limit is the maximum\nnumber of rows.", "maximum") == (
        "The limit is the maximum\nnumber of rows."
    )


def test_finish_sentence_keeps_closing_marks_and_takes_them_as_a_complete_end():
    assert finished("A change to\nthe parser (see *Notes.*) Next one.", "change to") == (
        "A change to\nthe parser (see *Notes.*)"
    )
    done = "(Contributed by a reviewer in bpo-40839.)\nThe next sentence."
    assert finished(done, "bpo-40839.)") == "(Contributed by a reviewer in bpo-40839.)"


def test_finish_sentence_skips_abbreviations():
    assert finished("Pass a value, e.g. a\nstring, and done. More.", "Pass a value,") == (
        "Pass a value, e.g. a\nstring, and done."
    )


def test_finish_sentence_does_not_run_into_the_next_block():
    assert finished("An item with no end\n- the next item. More.", "no end") == "An item with no end"
    assert finished("| a cell | and\n| next row. |", "and") == "| a cell | and"  # a table row stays whole
    assert finished("```\nsome code here\nmore code. x\n```", "here") == "```\nsome code here"


def test_finish_sentence_leaves_a_complete_sentence_or_an_end_out_of_reach_alone():
    assert finished("Done. Next sentence.", "Done.") == "Done."
    text = "A sentence that goes on " + "and on " * 30 + "and ends."
    assert finished(text, "goes on", reach=50) == "A sentence that goes on"


# --- paginate ------------------------------------------------------------------------------------
@pytest.mark.parametrize("include_code", [False, True], ids=["no-code", "code"])
@pytest.mark.parametrize("name", [pytest.param(p, marks=pytest.mark.slow) if p in BIG else p for p in PAGES])
def test_following_next_start_reproduces_every_page_exactly(name, include_code):
    text = page_markdown(name, include_code)
    assert text
    for limit in (300, 777, 1000, 5000):
        pieces, start = [], 0
        while start is not None:
            window = paginate(text, start, limit)
            assert window.start == start and window.total == len(text)
            assert 0 < len(window.content) <= limit, (limit, start)
            inside = open_fence(text, start) is not None
            left_open = open_fence_line(window.content)
            # A window leaves a fence open only when one code block alone outsizes it.
            assert inside or left_open is None or left_open.start() == 0, (limit, start)
            pieces.append(window.content)
            start = window.next_start
        assert "".join(pieces) == text, limit


def test_paginate_marks_the_last_window_with_no_next_start():
    w = paginate("one\n\ntwo", 0, 100)
    assert (w.content, w.start, w.next_start, w.total) == ("one\n\ntwo", 0, None, 8)


def test_paginate_clamps_a_start_past_the_end():
    w = paginate("abc", 99, 10)
    assert (w.content, w.start, w.next_start) == ("", 3, None)


# --- truncate ------------------------------------------------------------------------------------
def test_truncate_returns_a_short_text_whole_and_uncut():
    assert truncate("short text", 100) == ("short text", False)


def test_truncate_cuts_at_a_boundary_and_says_so():
    text = "First paragraph. " * 30 + "\n\n" + "Second paragraph. " * 30
    out, was_cut = truncate(text, 600)
    assert was_cut
    assert out == ("First paragraph. " * 30).rstrip()
    assert "Second" not in out


def test_a_window_that_splits_a_tilde_fence_closes_and_reopens_it_with_its_own_marker(tmp_path):
    lines = [f"```not a close {i}" if i % 7 == 0 else f"line {i} of the tilde block" for i in range(300)]
    (tmp_path / "tilde.md").write_text(
        "# Tilde\n\nIntro paragraph.\n\n~~~text\n" + "\n".join(lines) + "\n~~~\n\nAfter.\n"
    )
    tools = make_tools(str(tmp_path))
    windows, start = [], 0
    while start is not None and len(windows) < 20:
        text = run(tools.get_doc_content("tilde.md", 2000, start, True))
        windows.append(text.split("\n\n", 1)[1].split("\n\n[cut at")[0])
        start = int(text.split("next_start_index=", 1)[1].split()[0]) if "next_start_index=" in text else None
    split = next(i for i, w in enumerate(windows) if "~~~text" in w)
    assert windows[split].endswith("\n~~~")  # closed by its own marker, not by ```
    assert windows[split + 1].startswith("~~~\n")  # and reopened with it
