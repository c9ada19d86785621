"""parsing: lenient parsing, the theme's content container, noise removal, selectors, titles."""

from __future__ import annotations

import re
from copy import deepcopy

import lxml.html
import pytest
from conftest import SITE

from docs_mcp.convert.hidden import (
    hidden_elements,
    hidden_within,
    may_hide,
    may_spell_class,
    walked_hidden_elements,
)
from docs_mcp.convert.parsing import find_main, normalize_space, page_title, parse_html, strip_noise
from docs_mcp.convert.pipeline import build_document
from docs_mcp.convert.selectors import SelectorGroups, SelectorSet, xpath
from docs_mcp.convert.simplify import code_language, simplify
from docs_mcp.errors import NotDocumentation
from docs_mcp.fetch.fetching import RawPage
from docs_mcp.fetch.sources import Location, Source
from docs_mcp.model.document import Document
from docs_mcp.settings import MAX_PAGE_SECTIONS
from docs_mcp.text.terms import tokenize


def main_of(name: str):
    return find_main(parse_html((SITE / name).read_text(encoding="utf-8")))


def cleaned_text(name: str) -> str:
    main = main_of(name)
    strip_noise(main)
    return normalize_space(main.text_content())


def el(html: str):
    return lxml.html.fragment_fromstring(html)


# --- find_main ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "tag", "cls"),
    [
        ("sphinx.html", "div", "body"),
        ("mkdocs.html", "article", "md-content__inner md-typeset"),
        ("docusaurus.html", "div", "theme-doc-markdown markdown"),
        ("docbook.html", "div", "chapter"),
        ("seed.html", "main", "content"),
    ],
)
def test_find_main_picks_the_theme_container(name, tag, cls):
    main = main_of(name)
    assert (main.tag, main.get("class")) == (tag, cls)


PROSE = "<p>" + "Tide tables list the predicted heights. " * 8 + "</p>"


@pytest.mark.parametrize(
    ("page", "wanted"),
    [
        # Django: div.document also holds the site header (its h1) and the nav bars.
        (
            '<div class="document"><div id="hd"><h1>Django documentation</h1><p>Home | Index</p></div>'
            f'<div id="bd"><div id="yui-main"><div class="yui-b">{PROSE}</div></div></div></div>',
            "yui-main",
        ),
        # Node.js: div#content also holds the list of every module.
        (
            '<div id="content"><div id="column2"><ul><li>Assertion testing</li><li>File system</li></ul></div>'
            f'<div id="column1"><div id="apicontent">{PROSE}</div></div></div>',
            "apicontent",
        ),
        # MkDocs' Bootstrap theme: nothing else names the content column.
        (
            f'<div class="span3">Home API Guide</div><div id="main-content" class="span9">{PROSE}</div>',
            "main-content",
        ),
    ],
)
def test_find_main_picks_the_content_column_of_django_node_and_bootstrap_mkdocs(page, wanted):
    assert find_main(parse_html(f"<html><body>{page}</body></html>")).get("id") == wanted


def test_find_main_takes_a_short_container_that_holds_the_title():
    root = parse_html(
        '<html><body><div id="menu-bar"><h1>The Book</h1></div>'
        "<main><h1>const_fn</h1><p>The tracking issue is #1.</p></main></body></html>"
    )
    assert find_main(root).tag == "main"


def test_find_main_skips_a_container_with_too_little_text():
    root = parse_html("<html><body><main><p>tiny</p></main><p>" + "body text " * 40 + "</p></body></html>")
    assert find_main(root).tag == "body"


def test_find_main_skips_a_selector_matching_several_sibling_containers():
    # AsciiDoc (git's manual pages): one div.sect1 per section, side by side in div#content.
    sects = "".join(
        f'<div class="sect1"><h2>{name}</h2><div class="sectionbody"><p>{name} {"text " * 50}</p></div></div>'
        for name in ("SYNOPSIS", "DESCRIPTION", "OPTIONS")
    )
    root = parse_html(
        f'<html><body><div id="header"><h1>git-reset(1)</h1></div><div id="content">{sects}</div></body></html>'
    )
    main = find_main(root)
    assert main.get("id") == "content"
    assert [h.text for h in main.iter("h2")] == ["SYNOPSIS", "DESCRIPTION", "OPTIONS"]


def test_find_main_skips_a_selector_whose_best_match_is_one_long_section_of_several():
    long = f'<div class="sect1"><h2>DESCRIPTION</h2><p>{"text " * 60}</p></div>'
    short = "".join(
        f'<div class="sect1"><h2>{n}</h2><p>{"word " * 25}</p></div>' for n in ("OPTIONS", "SEE ALSO")
    )
    root = parse_html(f'<html><body><div id="content">{long}{short}</div></body></html>')
    assert [h.text for h in find_main(root).iter("h2")] == ["DESCRIPTION", "OPTIONS", "SEE ALSO"]


# --- strip_noise: per theme ----------------------------------------------------------------------
def test_sphinx_noise_is_stripped_and_content_kept():
    text = cleaned_text("sphinx.html")
    assert "¶" not in text
    assert "SPHINX_SCRIPT_SENTINEL" not in text and "Quick search" not in text
    assert "Working with tide series A tide series is the central object in Tidepool" in text
    assert "Event-based sampling keeps only turning points" in text


def test_mkdocs_noise_is_stripped_and_content_kept():
    text = cleaned_text("mkdocs.html")
    for noise in (
        "¶",
        "Was this page helpful?",
        "Thanks for your feedback!",
        "March 14, 2025",
        "Back to top",
    ):
        assert noise not in text, noise
    assert text.startswith("Tide series A TideSeries pairs water levels")
    assert "Daylight saving gaps Local clocks skip an hour in spring." in text
    assert "Interpolated by Tidepool" in text


def test_docusaurus_noise_is_stripped_and_content_kept():
    main = main_of("docusaurus.html")
    strip_noise(main)
    text = main.text_content()
    assert "Copy" not in text
    assert "\u200b" not in text  # the hash-link's zero-width text goes with the link
    assert main.find(".//h1") is not None  # <header><h1> is unwrapped, not dropped
    assert "Working with stations" in text
    assert "Name searches ignore case and accents" in text


def test_docbook_noise_is_stripped_and_content_kept():
    text = cleaned_text("docbook.html")
    assert "Table of Contents" not in text
    assert "1.2.2.1. Custom Catalogs" in text
    assert "Binary wheels are published for Linux, macOS and Windows." in text


def test_seed_noise_is_stripped_and_content_kept():
    text = cleaned_text("seed.html")
    for noise in (
        "¶",
        "Was this page helpful?",
        "Rate this page",
        "Copy",
        "Previous",
        "Next",
        "Guides",
        "SEED_STYLE_SENTINEL_MAIN",
        "SEED_SCRIPT_SENTINEL_MAIN",
        "SVG_TEXT_SENTINEL",
        "★",
    ):
        assert noise not in text, noise
    assert "Chart datum is chosen so that the water is almost never lower than it" in text
    assert "A semidiurnal curve crossing the mean level twice per cycle." in text  # figcaption stays
    assert "Record which datum every file uses before merging anything." in text


def test_japanese_feedback_form_is_stripped():
    text = cleaned_text("japanese.html")
    assert "このページは役に立ちましたか" not in text
    assert "潮位データを読み込むには load 関数を使います。" in text


def test_headings_inside_admonitions_are_not_headings_afterwards():
    main = main_of("docbook.html")
    strip_noise(main)
    headings = [normalize_space(h.text_content()) for h in main.iter("h1", "h2", "h3", "h4", "h5", "h6")]
    assert "Note" not in headings
    assert "1.1. Installation" in headings
    assert "Note" in normalize_space(main.text_content())  # the label stays, as a paragraph


def test_admonition_heading_becomes_a_paragraph():
    box = el('<div><div class="note"><h3>Careful</h3><p>Body</p></div><h2>Real</h2></div>')
    strip_noise(box)
    assert [h.text for h in box.iter("h2", "h3")] == ["Real"]
    assert box.find(".//p").text == "Careful"


def test_a_data_lang_plain_text_declaration_is_tagged_text():
    assert code_language(_pre('<pre data-lang="none">usage: tide [-h]</pre>')) == "text"
    assert code_language(_pre('<pre data-lang="Python">x = 1</pre>')) == "python"


def test_doxygen_member_title_loses_its_permalink_glyph():
    main = el(
        '<div class="contents"><h2 class="memtitle"><span class="permalink"><a href="#ga31">&#9670;&nbsp;</a>'
        "</span>mdb_txn_begin()</h2><p>Create a transaction for use with the environment.</p></div>"
    )
    strip_noise(main)
    assert normalize_space(main.find("h2").text_content()) == "mdb_txn_begin()"


@pytest.mark.parametrize(
    "noise",
    [
        '<a class="reference internal" href="_modules/tide.html"><span class="viewcode-link">[source]</span></a>',
        '<div class="prev-next-area"><a href="a.html">previous</a><a href="b.html">next</a></div>',
        '<span class="notable-traits">Notable traits for Vec impl Write</span>',
        '<a class="srclink" href="../src/vec.rs">source</a>',
        '<a id="toggle-all-docs" href="#">[−]</a>',
        '<summary class="hideme"><span>Expand description</span></summary>',
        '<a class="test-arrow" href="https://play.example/">Run</a>',
        '<div id="mbrsel"><div id="order"><span class="filtertype">Ordering</span><ol><li>Alphabetic</li>'
        '<li>By Inheritance</li></ol></div><div id="visbl"><span class="filtertype">Visibility</span></div></div>',
    ],
)
def test_sphinx_pydata_rustdoc_and_scaladoc_widgets_are_noise(noise):
    box = el(f"<div><p>Predicted heights{noise}</p></div>")
    strip_noise(box)
    assert normalize_space(box.text_content()) == "Predicted heights"


def test_control_characters_do_not_break_parsing_or_simplifying():
    main = find_main(parse_html(f"<html><body><main>{PROSE}<pre>s = 'X\x01Y'</pre></main></body></html>"))
    simplify(main)
    assert main.find("pre").text == "s = 'X\ufffdY'"


def test_signature_parameters_are_not_emphasized():
    box = el(
        '<div><dl><dt class="sig">copy2(<em class="sig-param"><span class="n">src</span></em>, '
        '<em class="sig-param"><span class="o">*</span></em>)</dt><dd><p>Like <em>copy</em>.</p></dd></dl></div>'
    )
    simplify(box)
    assert [e.text_content() for e in box.iter("em")] == ["copy"]
    assert box.find(".//dt").text_content() == "copy2(src, *)"


def test_adjacent_emphasis_is_one_emphasis():
    box = el(
        '<div><p><strong>args</strong> (<a href="#o"><em>Optional</em></a><em>[</em><a href="#l"><em>List</em></a>'
        "<em>[</em><em>str</em><em>]]</em>) – the arguments, <em>or</em> <em>none</em></p></div>"
    )
    simplify(box)
    assert [e.text_content() for e in box.iter("em")] == ["Optional[List[str]]", "or none"]


def test_numpydoc_parameter_type_keeps_its_css_separator():
    box = el(
        '<div><dl><dt><strong>levels</strong><span class="classifier">sequence</span></dt>'
        "<dd><p>New levels.</p></dd></dl></div>"
    )
    simplify(box)
    assert box.find(".//dt").text_content() == "levels : sequence"


def test_gi_docgen_title_separators_become_dots_so_its_words_are_found():
    box = el(
        '<div><h1><a href="index.html">Gtk</a><span class="sep" role="presentation"></span>'
        '<a href="class.Label.html">Label</a><span class="sep"></span>set_wrap_mode</h1></div>'
    )
    simplify(box)
    title = box.find(".//h1").text_content()
    assert title == "Gtk.Label.set_wrap_mode"
    assert {"label", "wrap", "mode"} <= set(tokenize(title))  # glued, it read `GtkLabelset_wrap_mode`


def test_comments_are_removed():
    box = el("<div><!-- build 1234 --><p>kept</p></div>")
    strip_noise(box)
    assert "build 1234" not in lxml.html.tostring(box, encoding=str)


# --- SelectorSet ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("selector", "matching", "not_matching"),
    [
        ("nav", "<nav>x</nav>", "<div>x</div>"),
        (".feedback", '<div class="box feedback">x</div>', '<div class="feedbacks">x</div>'),
        ("#searchbox", '<div id="searchbox">x</div>', '<div id="searchbox2">x</div>'),
        ("[aria-hidden=true]", '<span aria-hidden="true">x</span>', '<span aria-hidden="false">x</span>'),
        ("[hidden]", "<div hidden>x</div>", "<div>x</div>"),
        ("a.headerlink", '<a class="headerlink">x</a>', '<span class="headerlink">x</span>'),
        ("div.note.warning", '<div class="warning note">x</div>', '<div class="note">x</div>'),
        (
            "div#main.body[role=main]",
            '<div id="main" class="body" role="main">x</div>',
            '<div id="main" class="body" role="nav">x</div>',
        ),
    ],
)
def test_selector_set_matches(selector, matching, not_matching):
    sel = SelectorSet((selector,))
    assert sel.matches(el(matching))
    assert not sel.matches(el(not_matching))


def test_selector_set_accepts_comma_separated_groups():
    sel = SelectorSet(("nav, footer", ".x"))
    samples = ("<nav>a</nav>", "<footer>a</footer>", '<p class="x">a</p>', "<p>a</p>")
    assert [sel.matches(el(h)) for h in samples] == [True, True, True, False]


SELECTOR_GROUPS = (("div.header", "div.nav-panel"), ("table.menu",), ("ul.mini-toc, ol.x.y",))


@pytest.mark.parametrize(
    "cls",
    [
        "header",
        " header\t",
        "nav-panel\nmenu",
        "top header x",
        "headers",
        "x\u00a0header",
        "x\x0cheader",
        "y x",
    ],
)
def test_selector_groups_find_what_each_groups_xpath_finds(cls):
    # Classes split on XML's white space only, as cssselect's XPath splits them (not on NBSP or form feed).
    root = el(
        f'<div class="{cls}"><table class="{cls}"><tr><td><ul class="{cls}"><li>a</li></ul></td></tr></table>'
        f'<div class="{cls}"><ol class="{cls}">b</ol></div><ul class="mini-toc">c</ul></div>'
    )
    found = SelectorGroups(SELECTOR_GROUPS).select(root)
    assert found == [xpath(group)(root) for group in SELECTOR_GROUPS]


def test_selector_groups_refuse_a_selector_without_a_class():
    with pytest.raises(ValueError, match="class"):
        SelectorGroups((("div",),))


def test_selector_set_select_returns_outermost_matches_in_order_never_the_root():
    root = el('<nav><div class="x"><nav>inner</nav></div><p>keep</p><footer>f</footer><nav>2</nav></nav>')
    found = SelectorSet(("nav", "footer")).select(root)
    assert [(e.tag, e.text_content()) for e in found] == [("nav", "inner"), ("footer", "f"), ("nav", "2")]
    found = SelectorSet((".x", "nav")).select(root)
    assert [e.get("class") for e in found] == ["x", None]  # the nav inside .x is not reported


# --- page_title ----------------------------------------------------------------------------------
def test_page_title_prefers_the_h1_when_the_title_starts_with_it():
    root = parse_html("<html><head><title>Resampling — Tidepool 2.0</title></head><body><h1>Resampling</h1>")
    assert page_title(root) == "Resampling"


def test_page_title_keeps_a_title_that_does_not_start_with_the_h1():
    root = parse_html("<html><head><title>Tidepool manual</title></head><body><h1>Welcome</h1></body></html>")
    assert page_title(root) == "Tidepool manual"


def test_page_title_falls_back_to_the_h1_then_untitled():
    root = parse_html("<body><h1>Only heading<a class='headerlink'>¶</a></h1></body>")
    assert page_title(root) == "Only heading"
    assert page_title(parse_html("<body><p>nothing</p></body>")) == "(untitled)"


def test_page_title_of_a_fragment_comes_from_its_json_metadata_comment():
    # Go's documentation: no <title>, no h1, the page's metadata as JSON in a comment before it.
    page = '<!--{\n\t"Title": "The Tidepool Specification",\n\t"Path": "/ref/spec"\n}-->\n<h2>Introduction</h2><p>x</p>'
    assert page_title(parse_html(page)) == "The Tidepool Specification"
    assert page_title(parse_html("<!--{not json}--><h2>Introduction</h2><p>x</p>")) == "(untitled)"
    nested = "<!--" + '{"a":' * 5_000 + "1" + "}" * 5_000 + "--><p>x</p>"
    assert page_title(parse_html(nested)) == "(untitled)"


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("sphinx.html", "Working with tide series"),
        ("seed.html", "Tidal datums"),
        ("japanese.html", "Tidepool ユーザーガイド"),
    ],
)
def test_page_title_of_fixtures(name, title):
    assert page_title(parse_html((SITE / name).read_text(encoding="utf-8"))) == title


# --- parse_html ----------------------------------------------------------------------------------
def test_parse_html_keeps_text_after_a_stray_body_close():
    body = parse_html((SITE / "malformed.html").read_text(encoding="utf-8")).find("body")
    text = normalize_space(body.text_content())
    assert "Text after a stray closing body tag is still part of the document." in text
    assert "This paragraph survives broken markup." in text


def test_parse_html_accepts_an_xml_declaration():
    root = parse_html((SITE / "docbook.html").read_text(encoding="utf-8"))
    assert page_title(root) == "Chapter 1. Getting Started with Tidepool"


def test_parse_html_refuses_an_empty_page():
    with pytest.raises(NotDocumentation, match="empty"):
        parse_html("  \n ")


def _pre(markup: str) -> lxml.html.HtmlElement:
    return next(lxml.html.fragment_fromstring(markup, create_parent="div").iter("pre"))


@pytest.mark.parametrize(
    ("markup", "language"),
    [
        ('<div class="highlight-python3"><div class="highlight"><pre>x = 1</pre></div></div>', "python3"),
        ('<div class="highlight-none notranslate"><div><pre>usage</pre></div></div>', "text"),
        ('<div class="highlight-text"><div><pre>output</pre></div></div>', "text"),
        ('<pre><code class="language-plaintext">output</code></pre>', "text"),
        ('<div class="highlight-default notranslate"><div class="highlight"><pre>x</pre></div></div>', ""),
        ("<pre>no declaration</pre>", ""),
        ('<div class="highlight-none"><pre class="language-bash">nearest wins</pre></div>', "bash"),
        ('<pre><pre class="playground"><code class="language-rust">fn main() {}</code></pre></pre>', "rust"),
    ],
)
def test_code_language_reads_the_nearest_declaration_and_tags_plain_text(markup, language):
    assert code_language(_pre(markup)) == language


# --- hostile structure ----------------------------------------------------------------------------
def document_of(html: str) -> Document:
    raw = RawPage(Location(Source("t", str(SITE), True), "x.html"), html, "html")
    return build_document(raw, "x.html")


@pytest.mark.parametrize("depth", [300, 3_000])
def test_deep_nesting_keeps_its_text(depth):
    html = "<html><body><main><h1>Deep</h1>" + "<div>" * depth + "DEEP_TEXT <b>bold</b>" + "</div>" * depth
    html += "<p>after the nest</p></main></body></html>"
    md = document_of(html).markdown()
    assert "DEEP_TEXT" in md and "bold" in md and "after the nest" in md
    if depth > 2_048:  # the parser cannot hold it: the page says it was flattened
        assert "[docslice: this page nests its markup deeper than 2,048 levels" in md


def test_a_huge_title_is_clipped():
    html = "<html><head><title>" + "T" * 200_000 + "</title></head><body><p>x</p></body></html>"
    title = document_of(html).title
    assert len(title) <= 200 and title.endswith("…")


# --- hidden text --------------------------------------------------------------------------------
HIDDEN_FORMS = (
    '<div style="display:none">HIDDEN_DISPLAY</div>',
    '<p style="Visibility: Hidden">HIDDEN_VISIBILITY</p>',
    '<span style="font-size:0">HIDDEN_FONT_SIZE</span>',
    '<div style="position:absolute; left:-10000px">HIDDEN_OFF_SCREEN</div>',
    '<p style="text-indent:-999em">HIDDEN_INDENT</p>',
    '<span class="sr-only">HIDDEN_SR_ONLY</span>',
    "<dialog><p>HIDDEN_DIALOG</p></dialog>",
    '<div aria-hidden="TRUE">HIDDEN_ARIA_UPPER</div>',
    "<div hidden>HIDDEN_ATTRIBUTE</div>",
    "<template><p>HIDDEN_TEMPLATE</p></template>",
)


def test_text_the_page_hides_is_neither_served_nor_indexed():
    body = "".join(HIDDEN_FORMS)
    shown = (
        '<dialog open><p>SHOWN_OPEN_DIALOG</p></dialog><p style="font-size:0.9em;left:-2px">SHOWN_SMALL</p>'
        '<table><tr style="display:none"><td>SHOWN_TREE_ROW</td></tr></table>'
        '<table><caption style="display:none">SHOWN_CAPTION</caption><tr><td>cell</td></tr></table>'
    )
    html = f"<html><body><main><h1>Tides</h1><p>The tide tables of the harbour.</p>{body}{shown}</main></body></html>"
    doc = document_of(html)
    text = doc.markdown() + " ".join(s.text for s in doc.sections)
    assert [f for f in HIDDEN_FORMS if re.search(r"HIDDEN_\w+", f)[0] in text] == []
    for word in (
        "SHOWN_OPEN_DIALOG",
        "SHOWN_SMALL",
        "SHOWN_TREE_ROW",
        "SHOWN_CAPTION",
        "The tide tables of the harbour.",
    ):
        assert word in text, word


def test_the_pages_hidden_elements_found_once_are_those_its_content_hides():
    # The indexer scans the whole page once (for its links' words too) and strips the content with it.
    page = (
        "<html><body><nav><span class='sr-only'>menu</span><a href='x.html' style='display:none'>x</a></nav>"
        "<main><h1>Tides</h1><div hidden><p style='display:none'>inner</p></div><p>Shown</p>"
        "<template><p>t</p></template><dialog><p>closed</p></dialog><p aria-hidden=true>a</p></main></body></html>"
    )
    root = parse_html(page)
    main = find_main(root)
    within = hidden_within(main, hidden_elements(root))
    assert within is not None and set(within) == set(hidden_elements(main))
    assert sorted(e.tag for e in within) == ["dialog", "div", "p", "template"]


def walked_form(page: str, form: str) -> tuple[str, lxml.html.HtmlElement, list]:
    """`page` with the hidden `form` (its marker renamed GONE_…, so no class word spells it) in place of
    `{form}`: its HTML, its tree and what the full walk finds there, checked to be the form's text alone."""
    form = form.replace("HIDDEN_", "GONE_")
    html = page.replace("{form}", form)
    root = parse_html(html)
    walked = hidden_elements(root)
    assert [e.text_content() for e in walked] == [re.search(r"GONE_\w+", form)[0]]
    return html, root, walked


@pytest.mark.parametrize(
    "form",
    [
        *HIDDEN_FORMS,
        "<div STYLE = display:none>HIDDEN_BARE_STYLE</div>",
        "<p style='display&colon;none'>HIDDEN_REFERENCE</p>",
        '<span class="sr&#45;only">HIDDEN_SPELLED_CLASS</span>',
        "<p style='color:red'>shown</p><noscript>HIDDEN_NOSCRIPT</noscript>",
        "<p title='a>b' hidden>HIDDEN_AFTER_A_QUOTED_GT</p>",
        "<p title='<x>'\nARIA-HIDDEN=true>HIDDEN_AFTER_A_QUOTED_TAG</p>",
    ],
)
def test_a_pages_text_tells_whether_its_elements_need_a_walk_and_the_hidden_ones_are_the_same(form):
    # The indexer hands the page's text along: a page that names no hiding attribute, class or style where a
    # tag holds it is only looked at for its hiding tags (Javadoc's: a <noscript>, margins, "AppHiddenEvent").
    shown = (
        "<p style='margin-top: 14px'>A tide's gauge is <a href='GaugeHiddenEvent.html'>hidden</a> by it.</p>"
    )
    html, root, walked = walked_form(
        "<html><body><main><h1>Tides</h1>" + shown + "{form}</main></body></html>", form
    )
    assert hidden_elements(root, html) == walked
    assert may_hide(html) == (walked[0].tag not in ("noscript", "template", "dialog"))


@pytest.mark.parametrize(
    "form",
    [
        *HIDDEN_FORMS,
        '<span class="sr&#45;only">HIDDEN_SPELLED_CLASS</span>',
        '<span class="sr-&#x6F;nly">HIDDEN_SPELLED_HEX</span>',
        '<span class="visually&#x2D;hidden">HIDDEN_SPELLED_HYPHEN</span>',
        "<p style='display&colon;none'>HIDDEN_REFERENCE</p>",
        "<p style='color:red'>shown</p><noscript>HIDDEN_NOSCRIPT</noscript>",
    ],
)
def test_a_page_whose_references_spell_no_class_word_finds_by_attribute_what_the_walk_finds(form):
    # Python's Sphinx pages: `&#39;` and a search form's type="hidden" on every one. A reference to a character
    # no class word holds cannot make one; the elements are then found by tag and attribute, in C.
    sphinx = (
        "<form><input type='hidden' name='area' value='default'></form><p style='margin-right: 10px'>It&#39;s"
        " &#187; &#64;here&#8212;&#x2192; <a href='x.html'>x</a></p>"
    )
    page = "<html><body><div class='wrap'><main><h1>Tides</h1>" + sphinx + "{form}</main></div></body></html>"
    html, root, walked = walked_form(page, form)
    assert may_spell_class(html) == ("class=" in form)
    assert walked_hidden_elements(root, html) == walked == hidden_elements(root, html)
    copy = deepcopy(find_main(root))  # the navigation test's copy of the content
    assert walked_hidden_elements(copy, html) == hidden_elements(copy)


def test_a_reference_that_may_be_read_as_a_class_words_character_counts_as_one():
    assert not may_spell_class("<p>It&#39;s &#187; &#x2192 &#8212;</p>")
    for ref in (
        "&#45;",
        "&#x73;",
        "&#X2d;",
        "&#0;",
        "&#xD800;",
        "&#1114112;",
        "&#",
        "&#x;",
        "&#" + "0" * 20 + "45;",
    ):
        assert may_spell_class(f"<p>It&#39;s {ref}</p>"), ref
    assert may_spell_class("<p class='sr-only'>x</p>")


def test_a_style_whose_quote_is_left_open_counts_as_one_that_may_hide():
    assert may_hide('<p style="display:none>x</p>') and may_hide("<p style='color:red>x</p>")
    assert not may_hide("<p style=''>x</p><p style=color:red>y</p><p style=>z</p>")


def test_content_inside_a_hidden_element_is_scanned_on_its_own():
    root = parse_html(
        "<html><body><div hidden><main><h1>T</h1><p hidden>x</p><p>y</p></main></div></body></html>"
    )
    main = root.find(".//main")
    assert hidden_within(main, hidden_elements(root)) is None
    assert [e.text for e in hidden_elements(main)] == ["x"]
    strip_noise(main, hidden_elements(root))
    assert main.text_content() == "Ty"


def test_the_unit_cap_counts_page_level_units_too():
    # Text between closed <section>s opens a page-level unit after each: 5,000 blocks gave 10,000 units.
    blocks = "".join(
        f"<section><h2>Gauge {i}</h2><p>Reading {i}.</p></section><p>Between {i} and the next.</p>"
        for i in range(MAX_PAGE_SECTIONS)
    )
    doc = document_of(f"<html><head><title>Gauges</title></head><body><main>{blocks}</main></body></html>")
    assert len(doc.sections) <= MAX_PAGE_SECTIONS
    last = doc.sections[-1]
    assert f"Between {MAX_PAGE_SECTIONS - 1} and the next." in last.text
    assert f"Gauge {MAX_PAGE_SECTIONS - 1}" in last.text and f"gauge-{MAX_PAGE_SECTIONS - 1}" in last.anchors
    assert any(f"over {MAX_PAGE_SECTIONS:,} units" in s.text for s in doc.sections)
