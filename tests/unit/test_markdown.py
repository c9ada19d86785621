"""markdown: HTML fragments to clean Markdown, with and without code blocks."""

from __future__ import annotations

from docs_mcp.markdown import clean_markdown, heading_line, html_to_markdown, markdown_without_code


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


def test_without_code_pre_blocks_are_removed_with_their_text():
    html = (
        '<p>Call <code>convert()</code> first.</p><pre data-lang="python">SECRET_CODE = 1</pre>'
        '<div class="highlight"><pre>HIGHLIGHTED_CODE</pre></div><p>After the code.</p>'
    )
    out = md_no_code(html)
    assert out == "Call `convert()` first.\n\nAfter the code."
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


def test_markdown_without_code_keeps_fences_declared_as_plain_text():
    text = "Help:\n\n```text\nusage: venv [-h]\n```\n\n```{.none}\nout\n```\n\n```sh\nvenv -h\n```\n\nend"
    assert (
        markdown_without_code(text)
        == "Help:\n\n```text\nusage: venv [-h]\n```\n\n```{.none}\nout\n```\n\nend"
    )


def test_markdown_without_code_drops_fenced_blocks():
    text = "Intro\n\n```python\nsecret()\n```\n\nUse `inline` here.\n\n~~~\ntilde block\n~~~\n\nend"
    assert markdown_without_code(text) == "Intro\n\nUse `inline` here.\n\nend"


def test_heading_line():
    assert heading_line(3, "Deep") == "### Deep"
    assert heading_line(0, "") == ""
