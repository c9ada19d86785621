"""sections: the heading outline of HTML themes and Markdown pages, each section with its own content."""

from __future__ import annotations

import asyncio
import functools

import lxml.html
import pytest
from conftest import SITE, make_tools

from docs_mcp.convert.mdsource import split_markdown
from docs_mcp.convert.parsing import find_main, parse_html, strip_noise
from docs_mcp.convert.sections import slugify, split_html
from docs_mcp.model.section import Section


@functools.cache
def page(name: str) -> dict[str, Section]:
    """A fixture page's sections by id, through the real parse → main → strip → split stages."""
    main = find_main(parse_html((SITE / name).read_text(encoding="utf-8")))
    strip_noise(main)
    return {s.id: s for s in split_html(main)}


def split(html: str) -> list[Section]:
    return split_html(lxml.html.fragment_fromstring(html, create_parent="div"))


def outline(sections) -> list[tuple[str, int, str | None]]:
    return [(s.id, s.level, s.parent) for s in sections]


# --- Sphinx: nested <section> and div.section containers ---------------------------------------
def test_sphinx_ids_levels_and_parents():
    assert outline(page("sphinx.html").values()) == [
        ("working-with-tide-series", 1, None),
        ("loading-data", 2, "working-with-tide-series"),
        ("station-metadata", 2, "working-with-tide-series"),
        ("resampling", 2, "working-with-tide-series"),
        ("choosing-a-frequency", 3, "resampling"),  # id from <div class="section" id=…>
        ("fixed-intervals", 4, "choosing-a-frequency"),
        ("event-based-sampling", 4, "choosing-a-frequency"),
        ("exporting-results", 2, "working-with-tide-series"),
        ("api-summary", 2, "working-with-tide-series"),
    ]


def test_sphinx_titles_have_no_permalink_glyph():
    assert page("sphinx.html")["resampling"].title == "Resampling"


def test_section_text_excludes_its_subsections():
    text = page("sphinx.html")["resampling"].text
    assert "Gauges rarely share a sampling interval." in text
    assert "Resampling never extrapolates beyond the first and last reading" in text
    assert "The frequency string combines a count and a unit" not in text
    assert "Fixed intervals divide the record" not in text
    assert "Fixed intervals divide the record" in page("sphinx.html")["fixed-intervals"].text


def test_section_content_keeps_document_order():
    text = page("sphinx.html")["loading-data"].text
    positions = [
        text.index(p)
        for p in (
            "Readings usually arrive",
            "Every loader returns a series",
            "Read a gauge export and return a tide series.",
            "If no known column layout matches the file.",
        )
    ]
    assert positions == sorted(positions)


def test_section_text_adds_no_spaces_around_inline_elements():
    (sec,) = split("<h2>X</h2><p>Its code is <code>CD</code>. Call <b>re</b>sample next.</p>")
    assert sec.text == "Its code is CD. Call resample next."


def test_section_text_separates_table_cells():
    (sec,) = split("<h2>X</h2><table><tr><td>Cell one</td><td>Cell two</td></tr></table>")
    assert sec.text == "Cell one Cell two"


def test_text_after_a_nested_container_belongs_to_the_enclosing_section():
    a, b = split(
        '<section id="a"><h1>A</h1><p>intro A</p><section id="b"><h2>B</h2><p>text B</p></section>'
        "<p>tail of A</p></section>"
    )
    assert (a.id, a.text, b.id, b.text) == ("a", "intro A tail of A", "b", "text B")


def test_a_container_holding_only_its_heading_marks_the_heading_not_the_section():
    # rustdoc: the method's <section> wraps its signature; the description follows outside it.
    impl, fmt, clone = split(
        '<details><summary><section id="impl-Debug"><h3>impl Debug for Vec</h3></section></summary>'
        '<div class="impl-items"><details><summary><section id="method.fmt"><h4>fn fmt(&amp;self)</h4>'
        "</section></summary><div><p>Formats the value.</p></div></details>"
        '<details><summary><section id="method.clone"><h4>fn clone(&amp;self)</h4></section></summary>'
        "<div><p>Returns a copy.</p></div></details></div></details>"
    )
    assert [(s.id, s.text, s.parent) for s in (impl, fmt, clone)] == [
        ("impl-Debug", "", None),
        ("method.fmt", "Formats the value.", "impl-Debug"),
        ("method.clone", "Returns a copy.", "impl-Debug"),
    ]


def test_content_after_the_last_section_container_stays_at_the_end_of_the_page():
    # DocBook (Boost): footnotes and the copyright footer follow the last div.section at the page's top level.
    secs = split(
        '<p>Lead words.</p><div class="section" id="a"><h2>Alpha</h2><p>Alpha words.</p></div>'
        '<div class="section" id="b"><h2>Beta</h2><p>Beta words.</p></div>'
        '<div class="footnotes"><p>[1] Trailing footnote.</p></div>'
    )
    assert [(s.id, s.level, s.text) for s in secs] == [
        ("top", 0, "Lead words."),
        ("a", 2, "Alpha words."),
        ("b", 2, "Beta words."),
        ("end", 0, "[1] Trailing footnote."),
    ]


def test_an_empty_section_before_others_is_still_a_section_of_its_own():
    # Sphinx "What's New" pages: "Summary – Release highlights" is empty, "New Features" follows it.
    page, summary, features, tail = split(
        '<section id="page"><h1>Whats new</h1><section id="summary"><h2>Summary</h2></section>'
        '<section id="features"><h2>New Features</h2><p>Assignment expressions.</p></section>'
        '<section id="tail"><h2>Tail</h2></section><p>Closing words.</p></section>'
    )
    assert [(s.id, s.parent, s.text) for s in (summary, features, tail)] == [
        ("summary", "page", ""),
        ("features", "page", "Assignment expressions."),
        ("tail", "page", ""),
    ]
    assert page.text == "Closing words."


def test_div_section_containers_give_ids_and_nesting():
    s1, s2 = split(
        '<div class="section" id="s1"><h2>S1</h2><p>p1</p>'
        '<div class="section" id="s2"><h3>S2</h3><p>p2</p></div></div>'
    )
    assert outline([s1, s2]) == [("s1", 2, None), ("s2", 3, "s1")]
    assert (s1.text, s2.text) == ("p1", "p2")


# --- DocBook: ids on container divs -------------------------------------------------------------
def test_docbook_ids_come_from_the_container_divs():
    secs = page("docbook.html")
    assert [(i, s.title) for i, s in secs.items() if i.startswith("TIDE-")] == [
        ("TIDE-START", "Chapter 1. Getting Started with Tidepool"),
        ("TIDE-INSTALL", "1.1. Installation"),
        ("TIDE-SETUP", "1.2. Setting Up"),
        ("TIDE-SETUP-CONFIG", "1.2.1. The Configuration File"),
        ("TIDE-SETUP-CATALOGS", "1.2.2. Station Catalogs"),
        ("TIDE-SETUP-CUSTOM", "1.2.2.1. Custom Catalogs"),
        ("TIDE-FIRST-SESSION", "1.3. A First Session"),
    ]


def test_docbook_sect2_and_sect3_nest_under_their_parents():
    secs = page("docbook.html")
    assert secs["TIDE-SETUP-CONFIG"].parent == "TIDE-SETUP"
    assert secs["TIDE-SETUP-CATALOGS"].parent == "TIDE-SETUP"
    assert secs["TIDE-SETUP-CUSTOM"].parent == "TIDE-SETUP-CATALOGS"


def test_docbook_admonition_title_is_content_not_a_section():
    secs = page("docbook.html")
    assert not any(s.title == "Note" for s in secs.values())
    assert "Note: Binary wheels are published for Linux" in secs["TIDE-INSTALL"].text


def test_docbook_chapter_heading_takes_the_chapter_div_id():
    first = next(iter(page("docbook.html").values()))
    assert (first.id, first.title) == ("TIDE-START", "Chapter 1. Getting Started with Tidepool")


def test_docbook_reference_page_sections_are_siblings_after_the_synopsis():
    secs = split(
        '<div class="refentry" id="SQL-CREATEINDEX"><div class="refnamediv"><h2>CREATE INDEX</h2>'
        "<p>CREATE INDEX — define a new index</p></div>"
        '<div class="refsynopsisdiv"><h2>Synopsis</h2><p>CREATE INDEX name ON table</p></div>'
        '<div class="refsect1" id="desc"><h2>Description</h2><p>Builds an index.</p></div>'
        '<div class="refsect1" id="params"><h2>Parameters</h2><p>The options.</p>'
        '<div class="refsect2" id="conc"><h3>Building Indexes Concurrently</h3><p>No write lock.</p></div></div>'
        "</div>"
    )
    parents = {s.title: s.parent for s in secs}
    top = secs[0].id
    assert parents == {
        "CREATE INDEX": None,
        "Synopsis": top,
        "Description": top,  # not inside the synopsis
        "Parameters": top,
        "Building Indexes Concurrently": "params",
    }


def test_docbook_nesting_follows_the_divs_not_the_heading_tags():
    # fixtures/README.md: "Logical tree, from the divs: Chapter > {1.1, 1.2 > {1.2.1, 1.2.2 > 1.2.2.1}, 1.3}"
    secs = list(page("docbook.html").values())
    chapter = secs[0].id
    assert [(s.title.split(" ")[0], s.parent) for s in secs] == [
        ("Chapter", None),
        ("1.1.", chapter),
        ("1.2.", chapter),
        ("1.2.1.", "TIDE-SETUP"),
        ("1.2.2.", "TIDE-SETUP"),
        ("1.2.2.1.", "TIDE-SETUP-CATALOGS"),
        ("1.3.", chapter),
    ]


@pytest.mark.usefixtures("no_short_literals")
def test_code_is_left_out_of_section_text_and_noted_in_its_markdown():
    doc = asyncio.run(make_tools(str(SITE)).document("docbook.html"))[1]
    i = doc.find("TIDE-SETUP-CUSTOM").section
    assert "KLW-02,Kelpwater Quay" not in doc.sections[i].text  # ranking reads what the model is shown
    assert "[code: " in doc.own_markdown(
        i
    ) and "KLW-02,Kelpwater Quay,57.1203,-5.8811,CD" not in doc.own_markdown(i)
    assert "KLW-02,Kelpwater Quay,57.1203,-5.8811,CD" in doc.own_markdown(i, include_code=True)


# --- every theme: each phrase lands in its own section (phrases from fixtures/README.md) ---------
@pytest.mark.parametrize(
    ("name", "section_id", "phrase"),
    [
        ("sphinx.html", "station-metadata", "Gauge position in decimal degrees, north positive."),
        ("sphinx.html", "api-summary", "An immutable sequence of water levels in metres"),
        (
            "docbook.html",
            "TIDE-SETUP-CATALOGS",
            "Gauges operated by harbour authorities, usually sampled every six minutes.",
        ),
        ("docbook.html", "TIDE-SETUP-CUSTOM", "Custom catalogs are plain CSV files with one row per gauge"),
        ("mkdocs.html", "time-zones", "Readings logged in local time during that hour cannot be mapped back"),
        ("mkdocs.html", "gaps-and-quality-flags", "Suspect: failed a spike or flatline test"),
        ("docusaurus.html", "working-with-stations", "Every reading in Tidepool belongs to a station"),
        ("docusaurus.html", "station-datums", "Datum offsets change when a gauge is relevelled"),
        ("seed.html", "what-is-a-datum", "A semidiurnal curve crossing the mean level twice per cycle."),
        ("seed.html", "chart-datum", "depths printed on nautical charts are measured down from this line"),
        ("japanese.html", "設定ファイル", "別の場所にある設定ファイルを読み込めます"),
        (
            "malformed.html",
            "recovering-content",
            "Text after a stray closing body tag is still part of the document.",
        ),
        ("malformed.html", "still-readable", "This paragraph survives broken markup."),
        ("guide/configuration.html", "environment-variables", "TIDEPOOL_CACHE_DIR"),
    ],
)
def test_phrase_lands_in_its_own_section_only(name, section_id, phrase):
    secs = page(name)
    assert phrase in secs[section_id].text
    assert [i for i, s in secs.items() if phrase in s.text] == [section_id]


# --- MkDocs: flat headings ---------------------------------------------------------------------
def test_mkdocs_ids_come_from_the_headings():
    assert outline(page("mkdocs.html").values()) == [
        ("tide-series", 1, None),
        ("creating-a-series", 2, "tide-series"),
        ("from-files", 3, "creating-a-series"),
        ("from-arrays", 3, "creating-a-series"),
        ("time-zones", 2, "tide-series"),
        ("gaps-and-quality-flags", 2, "tide-series"),
        ("filling-gaps", 3, "gaps-and-quality-flags"),
        ("plotting", 2, "tide-series"),
    ]


def test_mkdocs_content_between_headings_goes_to_the_section_above():
    secs = page("mkdocs.html")
    assert "Use tidepool.load for gauge exports" in secs["from-files"].text
    assert "Large exports load faster when you pass usecols" in secs["from-files"].text  # the tip box
    assert "Wrapping arrays" not in secs["from-files"].text
    assert "Wrapping arrays is handy for model output" in secs["from-arrays"].text
    assert secs["creating-a-series"].text == (
        "There are two ways to build a series: read it from a file, "
        "or wrap arrays you already hold in memory."
    )


# --- ids without anchors, duplicates, empty headings -------------------------------------------
def test_heading_without_id_gets_a_slug_keeping_japanese_characters():
    secs = page("japanese.html")
    assert secs["設定ファイル"].title == "設定ファイル"
    assert "設定は tidepool.toml に書きます。" in secs["設定ファイル"].text
    assert slugify("潮位 データ！") == "潮位-データ"
    assert slugify("Using the `load()` API!") == "using-the-load-api"
    assert slugify("¿?") == "section"


def test_anchor_before_or_inside_a_heading_gives_its_id():
    before, inside = split(
        '<a id="anch"></a><h2>Anchored</h2><p>x</p><h2><a name="inner"></a>Inner</h2><p>y</p>'
    )
    assert (before.id, inside.id) == ("anch", "inner")


def test_duplicate_ids_are_made_unique():
    secs = split('<h2>Usage</h2><p>one</p><h2>Usage</h2><p>two</p><h2 id="x">X</h2><p>a</p><h3 id="x">Y</h3>')
    assert [s.id for s in secs] == ["usage", "usage-2", "x", "x-2"]
    assert [s.text for s in secs] == ["one", "two", "a", ""]


def test_empty_headings_are_dropped():
    secs = split(
        '<h2 id="a">A</h2><p>one</p><h2 id="empty"></h2><p>two</p><h3><a class="headerlink">¶</a></h3>'
    )
    assert [s.id for s in secs] == ["a"]
    assert secs[0].text == "one two"


def test_content_before_the_first_heading_is_a_level_zero_section():
    top, first = split("<p>before</p><h2>First</h2><p>x</p>")
    assert (top.id, top.title, top.level, top.text) == ("top", "", 0, "before")
    assert first.id == "first"


# --- split_markdown ----------------------------------------------------------------------------
MD = """pre text

# Title {#custom}

Intro

```python
# a comment, not a heading
x = 1
```

## Sub ##

body

### Deep
deep text

~~~
## inside a tilde fence
~~~

## Sub
again
#not-a-heading
"""


def test_split_markdown_outline():
    title, secs = split_markdown(MD)
    assert title == "Title"
    assert [(s.id, s.title, s.level, s.parent) for s in secs] == [
        ("top", "", 0, None),
        ("custom", "Title", 1, None),
        ("sub", "Sub", 2, "custom"),
        ("deep", "Deep", 3, "sub"),
        ("sub-2", "Sub", 2, "custom"),
    ]


def test_split_markdown_ignores_hash_lines_inside_code_fences():
    secs = {s.id: s for s in split_markdown(MD)[1]}
    assert "# a comment, not a heading" in secs["custom"].body_md
    assert "## inside a tilde fence" in secs["deep"].body_md
    assert secs["sub-2"].body_md == "again\n#not-a-heading"


def test_split_markdown_fixture():
    title, secs = split_markdown((SITE / "notes.md").read_text(encoding="utf-8"))
    assert title == "Release notes"
    assert [(s.id, s.level, s.parent) for s in secs] == [
        ("release-notes", 1, None),
        ("20", 2, "release-notes"),
        ("breaking-changes", 3, "20"),
        ("new-features", 3, "20"),
        ("19", 2, "release-notes"),
    ]
    assert "tidepool upgrade-archive archive/2019.tpa --in-place" in secs[2].body_md


def test_split_markdown_longer_fence_is_not_closed_by_a_shorter_one():
    text = "# Writing docs\n\n````markdown\n```python\n# not a heading\n```\n````\n\n## Real\n"
    assert [s.title for s in split_markdown(text)[1]] == ["Writing docs", "Real"]


def test_split_markdown_setext_headings_open_sections():
    text = "Tide tables\n===========\n\nIntro.\n\nReading a table\n---------------\n\nRows are days.\n"
    title, secs = split_markdown(text)
    assert title == "Tide tables"
    assert [(s.id, s.title, s.level, s.parent, s.body_md) for s in secs] == [
        ("tide-tables", "Tide tables", 1, None, "Intro."),
        ("reading-a-table", "Reading a table", 2, "tide-tables", "Rows are days."),
    ]


def test_split_markdown_a_fence_holding_heading_lines_and_a_shorter_fence_is_one_body():
    fenced = "~~~~markdown\n# Not a heading\nNor this\n========\n```\n~~~~"
    secs = split_markdown(f"# Guide\n\n{fenced}\n\n## Real\ntext\n")[1]
    assert [s.title for s in secs] == ["Guide", "Real"]
    assert secs[0].body_md == fenced


def test_split_markdown_indented_code_is_not_a_heading():
    text = "# Shell\n\n    # a comment in a shell session\n    ls -l\n\ndone\n"
    (only,) = split_markdown(text)[1]
    assert only.body_md == "    # a comment in a shell session\n    ls -l\n\ndone"


def test_split_markdown_front_matter_stays_text_before_the_first_heading():
    text = "---\ntitle: Tide tables\nlayout: page\n---\n\n# Tide tables\n\nIntro.\n"
    title, secs = split_markdown(text)
    assert title == "Tide tables"
    assert [(s.title, s.level) for s in secs] == [("", 0), ("Tide tables", 1)]
    assert secs[0].body_md == "---\ntitle: Tide tables\nlayout: page\n---"


def test_split_markdown_heading_lines_keep_their_numbers_with_windows_line_ends():
    secs = split_markdown("# One\r\n\r\nfirst\r\n\r\nTwo\r\n---\r\nsecond\r\n")[1]
    assert [(s.title, s.body_md) for s in secs] == [("One", "first"), ("Two", "second")]


def test_a_page_over_its_split_budget_is_one_section_that_says_so():
    html = "".join(f"<h2>Part {n}</h2><p>text {n}</p>" for n in range(50))
    (only,) = split_html(lxml.html.fragment_fromstring(html, create_parent="div"), budget=-1)
    assert only.level == 0
    assert "[docslice: this page took over" in only.body_html and "text 49" in only.text
