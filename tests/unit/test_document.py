"""document: the page as sections, section markdown as exact slices of the page, lookup by id or heading."""

from __future__ import annotations

import asyncio
import functools

import lxml.html
import pytest
from conftest import SITE, make_tools

from docs_mcp.convert.outline import markdown_size
from docs_mcp.convert.render import render_section
from docs_mcp.convert.sections import split_html
from docs_mcp.errors import InvalidArgument, SectionNotFound
from docs_mcp.model.document import SEPARATOR, Document, Section
from docs_mcp.settings import UNKNOWN_ID_LIST_CAP

PAGES = [
    "sphinx.html",
    "docbook.html",
    "mkdocs.html",
    "docusaurus.html",
    "seed.html",
    "japanese.html",
    "malformed.html",
    "notes.md",
    "api-3.html",
]


@functools.cache
def page(name: str) -> Document:
    return asyncio.run(make_tools(str(SITE)).document(name))[1]


def manual(*sections: Section) -> Document:
    """A page titled "Site manual" built from hand-made sections."""
    return Document("p.html", "src", "Site manual", sections)


def synthetic(n: int) -> Document:
    return Document(
        "many.html",
        "src",
        "Many",
        tuple(
            Section(f"sec{i:02d}", f"Section {i}", 2, None, body_html="<p>x</p>", text="x") for i in range(n)
        ),
        render=render_section,
    )


# --- markdown slices -----------------------------------------------------------------------------
@pytest.mark.parametrize("include_code", [False, True], ids=["no-code", "code"])
@pytest.mark.parametrize("name", PAGES)
def test_section_markdown_is_the_exact_slice_of_its_span(name, include_code):
    doc = page(name)
    full = doc.markdown(include_code)
    for i in range(len(doc.sections)):
        start, stop = doc.span(i)
        piece = doc.section_markdown(i, include_code)
        assert piece == doc.join(start, stop, include_code)
        at = full.find(piece)
        assert at >= 0, doc.sections[i].id
        assert piece.startswith(doc.own_markdown(i, include_code))
        after = doc.join(stop, len(doc.sections), include_code)
        # What follows the slice in the page is exactly the rest of the sections, nothing of its own.
        assert full[at + len(piece) :] == (SEPARATOR + after if after else "")


def test_section_markdown_includes_subsections_and_stops_at_the_next_sibling():
    doc = page("sphinx.html")
    out = doc.section_markdown(doc.find("resampling").section)
    assert out.startswith("## Resampling\n\nGauges rarely share a sampling interval.")
    assert "### Choosing a frequency" in out
    assert "#### Fixed intervals" in out and "#### Event-based sampling" in out
    assert "Exporting results" not in out
    assert "¶" not in out


def test_own_markdown_excludes_subsections():
    doc = page("sphinx.html")
    out = doc.own_markdown(doc.find("resampling").section)
    assert "Resampling never extrapolates" in out
    assert "Choosing a frequency" not in out


@pytest.mark.usefixtures("no_short_literals")
def test_markdown_without_code_has_no_fences_but_keeps_inline_code():
    doc = page.__wrapped__("mkdocs.html")  # not the cached one: its markdown was rendered with short literals
    assert "```" not in doc.markdown()
    assert "exports/west-jetty.csv" not in doc.markdown()
    assert "`tidepool.load`" in doc.markdown()
    assert "```python" in doc.markdown(include_code=True)
    assert "exports/west-jetty.csv" in doc.markdown(include_code=True)


@pytest.mark.usefixtures("no_short_literals")
def test_markdown_page_sections_render_their_markdown_body():
    doc = page.__wrapped__("notes.md")
    out = doc.section_markdown(doc.find("breaking-changes").section)
    assert out.startswith("### Breaking changes\n\n- `tidepool.load` no longer accepts")
    assert "```bash" not in out
    assert "```bash\ntidepool upgrade-archive" in doc.section_markdown(
        doc.find("breaking-changes").section, True
    )


# --- find ----------------------------------------------------------------------------------------
def test_find_by_id():
    doc = page("sphinx.html")
    assert doc.sections[doc.find("station-metadata").section].title == "Station metadata"
    assert doc.find("#station-metadata") == doc.find("station-metadata")


def test_find_by_heading_text_ignores_case_and_spacing():
    doc = page("sphinx.html")
    assert doc.sections[doc.find("  station   METADATA ").section].id == "station-metadata"


def test_find_by_id_ignores_case_as_a_last_resort():
    doc = page("docbook.html")
    assert doc.sections[doc.find("tide-setup-custom").section].id == "TIDE-SETUP-CUSTOM"


def test_unknown_id_lists_the_available_ids():
    with pytest.raises(SectionNotFound) as exc:
        page("sphinx.html").find("nope")
    msg = str(exc.value)
    assert "no section 'nope' in sphinx.html" in msg
    assert "Available ids: working-with-tide-series, loading-data, station-metadata, resampling," in msg
    assert "more" not in msg


def test_unknown_id_list_is_capped():
    n = UNKNOWN_ID_LIST_CAP + 5
    with pytest.raises(SectionNotFound) as exc:
        synthetic(n).find("nope")
    msg = str(exc.value)
    listed = msg.split("Available ids: ", 1)[1].split(" … ", 1)[0].split(", ")
    assert listed == [f"sec{i:02d}" for i in range(UNKNOWN_ID_LIST_CAP)]
    assert "and 5 more" in msg


def test_empty_section_id_is_an_invalid_argument():
    with pytest.raises(InvalidArgument, match="section_id is empty"):
        page("sphinx.html").find(" # ")


# --- paths ---------------------------------------------------------------------------------------
def test_path_runs_from_the_top_heading_down():
    doc = page("sphinx.html")
    assert doc.path(doc.find("fixed-intervals").section) == [
        "Working with tide series",
        "Resampling",
        "Choosing a frequency",
        "Fixed intervals",
    ]


def test_short_path_drops_the_page_title():
    doc = page("sphinx.html")
    assert doc.short_path(doc.find("fixed-intervals").section) == [
        "Resampling",
        "Choosing a frequency",
        "Fixed intervals",
    ]
    assert doc.short_path(doc.find("working-with-tide-series").section) == ["Working with tide series"]


def test_short_path_keeps_a_top_heading_that_is_not_the_title():
    doc = manual(
        Section("intro", "Introduction", 1, None, text="a"),
        Section("setup", "Setup", 2, "intro", text="b"),
    )
    assert doc.short_path(1) == ["Introduction", "Setup"]


def test_places_name_each_sections_ancestors_or_the_page_title_and_skip_untitled_sections():
    doc = manual(
        Section("top", "", 0, None, text="preamble"),
        Section("intro", "Introduction", 1, None, text="a"),
        Section("setup", "Setup", 2, "intro", text="b"),
        Section("unnamed", "", 3, "setup", text="c"),
        Section("steps", "Steps", 4, "unnamed", text="d"),
    )
    assert doc.places() == [
        "Site manual",
        "Site manual",
        "Introduction",
        "Introduction",
        "Introduction > Setup",
    ]
    assert doc.path(4) == ["Introduction", "Setup", "Steps"]


def test_document_of_a_page_has_its_title_source_and_a_content_hash():
    doc = page("seed.html")
    assert (doc.title, doc.source, doc.url) == ("Tidal datums", "site", "seed.html")
    assert len(doc.content_hash) == 40


@pytest.mark.parametrize("name", ["big-reference.html", "docbook.html", "notes.md", "sphinx.html"])
@pytest.mark.parametrize("include_code", [False, True])
def test_section_sizes_equal_the_length_of_each_section_markdown(name, include_code):
    doc = page(name)
    expected = [len(doc.section_markdown(i, include_code)) for i in range(len(doc.sections))]
    assert doc.section_sizes(include_code) == expected


@pytest.mark.parametrize("name", ["big-reference.html", "docbook.html", "notes.md", "sphinx.html"])
@pytest.mark.parametrize("include_code", [False, True])
def test_markdown_size_is_the_length_of_the_page_markdown_without_joining_it(name, include_code):
    shared = page(name)
    doc = Document.from_json(shared.to_json(), render=shared.render)  # a memo of its own
    size = markdown_size(doc, include_code)
    assert ("page", include_code) not in doc._memo  # the TOC's page size keeps no second copy of the page
    assert size == len(doc.markdown(include_code))


# --- defined names ---------------------------------------------------------------------------
def test_names_are_the_api_signatures_a_section_defines():
    d = page("sphinx.html")
    names = {n for s in d.sections for n in s.names}
    # A method inside its class's entry shows its short name, as Sphinx renders it.
    assert {"tidepool.load", "tidepool.TideSeries", "resample"} <= names
    assert not [n for n in names if n.endswith(":")]  # "Parameters:" field labels are not names


def test_names_drop_signature_keywords_and_keep_options_and_glossary_terms():
    terms = [
        "class pkg.Reader(path)",
        "exception pkg.ReadError",
        "-W arg",
        "abstract base class",
        "property pkg.Model.header: float",
        "pkg.DEFAULT_TZ = &#39;UTC&#39;",
        "abstract async method pkg.Foo.bar(x)",
        "--foo[=VALUE]",
        "int PyObject_Str(PyObject *o)",
        "Parameters:",
        "a long sentence that describes something " * 3,
    ]
    body = "<dl>" + "".join(f"<dt>{t}</dt><dd>x</dd>" for t in terms) + "</dl>"
    (section,) = split_html(lxml.html.fragment_fromstring(f"<h2>S</h2>{body}", create_parent="div"))
    assert list(section.names) == [
        "pkg.Reader",
        "pkg.ReadError",
        "-W arg",
        "abstract base class",
        "pkg.Model.header",
        "pkg.DEFAULT_TZ",
        "pkg.Foo.bar",
        "--foo",
        "PyObject_Str",
    ]
