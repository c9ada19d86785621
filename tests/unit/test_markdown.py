"""markdown: HTML fragments to clean Markdown, with and without code blocks."""

from __future__ import annotations

import pytest

from docs_mcp.convert.cleanup import clean_markdown, heading_line
from docs_mcp.convert.definitions import CLOSE, END, START
from docs_mcp.convert.markdown import convert, extract_markers, html_to_markdown
from docs_mcp.convert.mdsource import markdown_without_code


def md(html: str) -> str:
    return html_to_markdown(html, include_code=True)


def md_no_code(html: str) -> str:
    return html_to_markdown(html, include_code=False)


def test_headings_are_atx():
    assert md("<h2>Loading data</h2><p>text</p><h4>Deep</h4>") == "## Loading data\n\ntext\n\n#### Deep"


def test_links_are_reduced_to_their_text():
    assert (
        md('<p>See the <a href="guide/quickstart.html">quickstart guide</a> first.</p>')
        == "See the quickstart guide first."
    )


def test_images_are_dropped():
    out = md('<p>before <img src="x.png" alt="diagram"> after</p>')
    assert out.startswith("before") and out.endswith("after")
    assert "diagram" not in out and "x.png" not in out and "![" not in out


def test_list_item_with_a_paragraph_gives_one_line():
    out = md("<ul><li><p>Record the datum.</p></li><li><p>Keep the epoch.</p></li></ul>")
    assert out == "- Record the datum.\n- Keep the epoch."


def test_ordered_list():
    assert md("<ol><li>one</li><li>two</li></ol>") == "1. one\n2. two"


def test_code_is_fenced_with_the_language_from_data_lang():
    out = md('<pre data-lang="python">import tidepool\nx = 1</pre>')
    assert out == "```python\nimport tidepool\nx = 1\n```"


def test_code_without_a_language_gets_a_bare_fence():
    assert md("<pre>make build</pre>") == "```\nmake build\n```"


@pytest.mark.usefixtures("no_short_literals")
def test_without_code_pre_blocks_leave_a_note_of_their_language_and_size():
    html = (
        '<p>Call <code>convert()</code> first.</p><pre data-lang="python">SECRET_CODE = 1\nmore()</pre>'
        '<div class="highlight"><pre>HIGHLIGHTED_CODE</pre></div><p>After the code.</p>'
    )
    out = md_no_code(html)
    assert out == "Call `convert()` first.\n\n[code: python, 2 lines]\n\n[code: 1 line]\n\nAfter the code."
    assert "SECRET_CODE" not in out and "HIGHLIGHTED_CODE" not in out and "```" not in out


def test_with_code_the_same_blocks_are_kept():
    out = md('<p>Call <code>convert()</code>.</p><pre data-lang="python">SECRET_CODE = 1</pre>')
    assert "```python\nSECRET_CODE = 1\n```" in out
    assert "`convert()`" in out


def test_underscores_and_asterisks_are_not_escaped():
    assert md("<p>set max_size_mb and use *args</p>") == "set max_size_mb and use *args"


def test_tables_become_pipe_tables():
    assert (
        md("<table><tr><th>Flag</th><th>Meaning</th></tr><tr><td>0</td><td>Good</td></tr></table>")
        == "| Flag | Meaning |\n| --- | --- |\n| 0 | Good |"
    )


def test_empty_fragment_gives_empty_markdown():
    assert md("  \n") == ""


# --- clean_markdown ------------------------------------------------------------------------------
def test_clean_removes_pilcrows():
    assert clean_markdown("## Resampling¶\n\ntext") == "## Resampling\n\ntext"


def test_clean_removes_copy_button_residue_lines_only():
    text = "before\nCopy\nCopy to clipboard\n  Copied!\nCopy code\nCopying data is slow.\nafter"
    assert clean_markdown(text) == "before\n\nCopying data is slow.\nafter"


def test_clean_strips_trailing_spaces_and_collapses_blank_runs():
    assert clean_markdown("\n\na   \n\n\n\n\nb\t\n\n\n") == "a\n\nb"


def test_without_code_plain_text_blocks_stay_as_text_fences():
    html = '<p>Run it with -h:</p><pre data-lang="text">--system-site-packages  Give access</pre><p>end</p>'
    assert md_no_code(html) == "Run it with -h:\n\n```text\n--system-site-packages  Give access\n```\n\nend"


@pytest.mark.usefixtures("no_short_literals")
def test_markdown_without_code_keeps_fences_declared_as_plain_text():
    text = "Help:\n\n```text\nusage: venv [-h]\n```\n\n```{.none}\nout\n```\n\n```sh\nvenv -h\n```\n\nend"
    assert (
        markdown_without_code(text)
        == "Help:\n\n```text\nusage: venv [-h]\n```\n\n```{.none}\nout\n```\n\n[code: sh, 1 line]\n\nend"
    )


@pytest.mark.usefixtures("no_short_literals")
def test_markdown_without_code_leaves_a_note_for_each_fenced_block():
    text = "Intro\n\n```python\nsecret()\n```\n\nUse `inline` here.\n\n~~~\ntilde block\n~~~\n\nend"
    assert (
        markdown_without_code(text)
        == "Intro\n\n[code: python, 1 line]\n\nUse `inline` here.\n\n[code: 1 line]\n\nend"
    )


@pytest.mark.usefixtures("no_short_literals")
def test_markdown_without_code_leaves_a_note_for_indented_code():
    text = "Run:\n\n    ls -l\n    cd /tmp\n\nthen read the output."
    assert markdown_without_code(text) == "Run:\n\n[code: 2 lines]\n\nthen read the output."


@pytest.mark.usefixtures("no_short_literals")
def test_markdown_without_code_keeps_a_note_in_the_list_item_or_quote_it_was_in():
    text = "- Install:\n\n  ```sh\n  pip install tidepool\n  ```\n- Import it.\n\n> ```py\n> import tidepool\n> ```"
    assert (
        markdown_without_code(text)
        == "- Install:\n\n  [code: sh, 1 line]\n- Import it.\n\n> [code: py, 1 line]"
    )


@pytest.mark.usefixtures("no_short_literals")
def test_markdown_without_code_a_backtick_line_does_not_close_a_tilde_fence():
    text = "Write:\n\n~~~markdown\n```python\nx = 1\n```\n~~~\n\nend"
    assert markdown_without_code(text) == "Write:\n\n[code: markdown, 3 lines]\n\nend"


def test_heading_line():
    assert heading_line(3, "Deep") == "### Deep"
    assert heading_line(0, "") == ""


# --- definition markers ---------------------------------------------------------------------------
def marked(k: int, text: str) -> str:
    return f"{START}{k}{CLOSE}{text}"


@pytest.mark.usefixtures("no_short_literals")
def test_markers_give_each_definitions_exact_span_and_leave_no_trace():
    html = (
        f"<p>intro</p><dl><dt>{marked(0, 're.sub(a)')}</dt><dd><p>Return it.</p>"
        f'<pre data-lang="python">x = 1</pre>{END}0{CLOSE}</dd>'
        f"<dt>{marked(1, 're.x')}</dt><dd><p>More</p>{END}1{CLOSE}</dd></dl><p>after</p>"
    )
    for include_code in (True, False):
        text, spans = convert(html, include_code, 2)
        assert START not in text and END not in text and CLOSE not in text
        assert [text[a:b].split("\n", 1)[0] for a, b in spans] == ["re.sub(a)", "re.x"]
        assert text[spans[1][0] : spans[1][1]] == "re.x\n:   More"
        assert text.endswith("\n\nafter")
    assert convert(html, False, 2)[0][slice(*convert(html, False, 2)[1][0])].endswith(
        "[code: python, 1 line]"
    )


def test_a_marker_alone_on_its_line_is_dropped_with_the_line():
    text = f"a\n\n{marked(0, 'term')}\n:   body\n\n    {END}0{CLOSE}\n\nnext"
    clean, spans = extract_markers(text, 1)
    assert clean == "a\n\nterm\n:   body\n\nnext"
    assert clean[spans[0][0] : spans[0][1]] == "term\n:   body"


def test_a_definition_whose_markers_were_lost_has_no_span():
    assert extract_markers("plain text", 2) == ("plain text", [None, None])


def test_a_pipe_in_a_table_cell_is_escaped():
    out = md(
        "<table><tr><th>Operator</th></tr><tr><td><code>?|</code> or <code>x | y</code></td></tr></table>"
    )
    assert out.split("\n")[2] == "| `?\\|` or `x \\| y` |"


def test_a_section_too_large_to_convert_is_shown_as_plain_text_with_a_note():
    rows = "".join(f"<tr><td>r{r}a</td><td>r{r}b</td></tr>" for r in range(40_000))
    text, _ = convert(f"<table>{rows}</table>", False)
    assert text.startswith("[docslice: this section's HTML is 1.")
    assert "\nr0a | r0b\nr1a | r1b\n" in text and "r39999b" in text


# --- short literals (issue 20) ----------------------------------------------------------------------
def test_without_code_a_two_line_block_is_shown_as_a_fenced_literal():
    html = '<p>The format:</p><pre data-lang="python">"%(asctime)s %(levelname)s"\nlevel=INFO</pre><p>end</p>'
    assert md_no_code(html) == 'The format:\n\n```python\n"%(asctime)s %(levelname)s"\nlevel=INFO\n```\n\nend'


def test_without_code_a_four_line_block_stays_a_note():
    html = '<p>Run:</p><pre data-lang="sh">make\nmake test\nmake install\nmake clean</pre><p>end</p>'
    out = md_no_code(html)
    assert out == "Run:\n\n[code: sh, 4 lines]\n\nend"
    assert "make install" not in out


def test_without_code_a_long_one_line_block_stays_a_note():
    html = f'<pre data-lang="python">x = [{", ".join(str(n) for n in range(200))}]</pre>'
    assert md_no_code(html) == "[code: python, 1 line]"


def test_markdown_without_code_keeps_a_one_line_fence_and_notes_a_four_line_one():
    text = "Run:\n\n```sh\npip install tidepool\n```\n\nor:\n\n```sh\na\nb\nc\nd\n```\n\nend"
    assert (
        markdown_without_code(text)
        == "Run:\n\n```sh\npip install tidepool\n```\n\nor:\n\n[code: sh, 4 lines]\n\nend"
    )


@pytest.mark.usefixtures("no_short_literals")
def test_with_short_literals_ablated_a_one_line_block_is_a_note():
    assert md_no_code('<pre data-lang="sh">pip install tidepool</pre>') == "[code: sh, 1 line]"


def test_fragments_converted_one_after_another_share_nothing():
    # Each thread keeps one parser between fragments: an element left open, a comment or a <pre> left unclosed
    # by one fragment never reaches into the next.
    firsts = [
        "<p><b>bold never closed",
        "<p>a comment <!-- never closed",
        "<pre>code never closed",
        "<table><tr>",
    ]
    for first in firsts:
        md(first)
        assert md("<p>next <i>one</i></p><pre>x = 1</pre>") == "next *one*\n\n```\nx = 1\n```"


def test_fragments_converted_on_several_threads_at_once_convert_as_on_one():
    from concurrent.futures import ThreadPoolExecutor

    fragments = [f"<h3>Part {i}</h3><ul><li><p>item {i}</p></li></ul><pre>code {i}</pre>" for i in range(200)]
    alone = [md(f) for f in fragments]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(md, fragments)) == alone
