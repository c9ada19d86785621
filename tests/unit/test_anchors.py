"""anchors and definitions: every id resolves to its unit, named by the id the site links to."""

from __future__ import annotations

from collections import Counter

import lxml.html
import pytest

from docs_mcp.convert.anchors import IdRegistry, choose, linked_fragments
from docs_mcp.convert.definitions import entry_title, find_groups, is_label
from docs_mcp.convert.render import render_section
from docs_mcp.convert.sections import split_html
from docs_mcp.model.document import Document
from docs_mcp.settings import MAX_PAGE_SECTIONS


def page(html: str, linked: dict[str, int] | None = None) -> Document:
    sections = split_html(lxml.html.fragment_fromstring(html, create_parent="div"), Counter(linked or {}))
    return Document("p.html", "src", "Page", tuple(sections), render=render_section)


# --- ids ------------------------------------------------------------------------------------------
def test_registry_suffixes_a_taken_id_and_never_takes_a_real_one():
    reg = IdRegistry(reserved=["intro-2"])
    assert [reg.claim("intro") for _ in range(3)] == ["intro", "intro-3", "intro-4"]
    assert reg.claim("intro-2", real=True) == "intro-2"  # the element that owns it keeps it


@pytest.mark.slow
def test_twenty_thousand_headings_sharing_one_id_get_distinct_ids_up_to_the_section_cap():
    html = "".join(f'<h2 id="x">Heading {n}</h2><p>text {n}</p>' for n in range(20_000))
    ids = [s.id for s in page(html).sections]
    assert len(set(ids)) == len(ids) == MAX_PAGE_SECTIONS and ids[:3] == ["x", "x-2", "x-3"]


def test_linked_fragments_count_links_to_this_page_only():
    root = lxml.html.fromstring(
        '<div><a href="#a">1</a><a href="#a">2</a><a href="p.html#b">3</a><a href="other.html#c">4</a></div>'
    )
    assert linked_fragments(root, "http://h/docs/p.html") == Counter({"a": 2, "b": 1})


def test_choose_prefers_the_most_linked_id_then_the_first():
    assert choose(["s-select-related", "select-related"], Counter({"select-related": 3})) == "select-related"
    assert choose(["own", "container"], Counter()) == "own"


def test_a_label_before_a_heading_and_its_container_id_both_name_the_section():
    html = '<div class="section" id="s-intro"><span id="intro"></span><h2>Intro</h2><p>text</p></div>'
    doc = page(html, {"intro": 2})
    assert doc.sections[0].id == "intro"
    assert doc.find("s-intro").section == doc.find("intro").section == 0


def test_an_id_inside_a_paragraph_resolves_to_its_section():
    html = "<h2 id='one'>One</h2><p>a</p><h2 id='two'>Two</h2><p>see <span id='index-3'></span>here</p>"
    assert page(html).find("index-3").section == 1


# --- definitions ----------------------------------------------------------------------------------
def test_definition_ids_and_names_resolve_to_the_definition():
    html = (
        "<h2 id='f'>Functions</h2><dl class='py function'><dt id='m.a'>m.a(x)</dt><dd><p>A.</p></dd>"
        "<dt id='m.b'>m.b(y)</dt><dd><p>B <span id='index-9'></span>here.</p></dd></dl>"
    )
    doc = page(html)
    assert [e.id for e in doc.sections[0].entries] == ["m.a", "m.b"]
    ref = doc.find("index-9")
    assert (ref.section, ref.entry) == (0, 1)
    assert doc.unit_markdown(ref) == "m.b(y)\n:   B here."
    assert doc.find("m.b") == ref


def test_nested_definitions_know_their_parent_and_their_span_holds_them():
    html = (
        "<h2>API</h2><dl><dt id='C'>class C</dt><dd><p>A class.</p>"
        "<dl><dt id='C.m'>m()</dt><dd><p>A method.</p></dd></dl></dd></dl>"
    )
    doc = page(html)
    outer, inner = doc.sections[0].entries
    assert inner.parent == 0 and outer.parent == -1
    assert "m()" in doc.unit_markdown(doc.find("C")) and "A method." in doc.unit_markdown(doc.find("C"))
    assert doc.unit_path(doc.find("C.m")) == ["API", "C", "m"]


def test_field_lists_labels_and_empty_descriptions_are_not_definitions():
    html = (
        "<h2 id='s'>S</h2><dl class='field-list'><dt>Parameters</dt><dd><p>x</p></dd></dl>"
        "<dl><dt>For bytes:</dt><dd><p>y</p></dd><dt id='bare'>bare()</dt><dd></dd></dl><p>Bare returns.</p>"
    )
    doc = page(html)
    assert doc.sections[0].entries == ()
    assert doc.find("bare").section == 0 and doc.find("bare").entry == -1  # its id names the section


def test_entry_titles_name_calls_by_their_name_and_other_terms_whole():
    assert entry_title("re.sub(pattern, repl, string, count=0, flags=0)") == "re.sub"
    assert entry_title("class re.RegexFlag") == "re.RegexFlag"
    assert entry_title("shared_buffers (integer)") == "shared_buffers"
    assert entry_title("TEMPORARY or TEMP") == "TEMPORARY or TEMP"
    assert entry_title("GENERATED { ALWAYS | BY DEFAULT } AS IDENTITY [ ( opts ) ]").startswith("GENERATED {")
    assert is_label("For Unicode (str) patterns:") and not is_label("re.sub(x)")


def test_groups_take_consecutive_terms_and_their_descriptions():
    root = lxml.html.fromstring(
        "<div><dl><dt>-h</dt><dt>--help</dt><dd>help</dd><dt>-v</dt><dd>v</dd></dl></div>"
    )
    groups = list(dict.fromkeys(find_groups(root, set()).values()))
    assert [[t.text for t in g.terms] for g in groups] == [["-h", "--help"], ["-v"]]


# --- lookup by text -------------------------------------------------------------------------------
def test_heading_text_never_wins_over_an_exact_id_and_ambiguity_is_reported():
    html = (
        "<h2 id='filter'>filter()</h2><p>The method.</p><h2 id='agg'>Aggregates</h2>"
        "<h3 id='agg-filter'>filter</h3><p>An argument.</p><h3 id='agg2'>Other</h3>"
        "<dl><dt id='a.sample'>sample</dt><dd><p>one</p></dd></dl><h3 id='agg3'>More</h3>"
        "<dl><dt id='b.sample'>sample</dt><dd><p>two</p></dd></dl>"
    )
    doc = page(html)
    assert doc.find("filter").section == 0 and not doc.find("filter").note
    ref = doc.find("sample")
    assert ref.entry == 0 and "'sample' is the heading of 2 units" in ref.note and "#b.sample" in ref.note


def test_unit_offset_is_where_the_unit_starts_in_the_page_markdown():
    html = "<h2 id='a'>A</h2><p>x</p><h2 id='b'>B</h2><dl><dt id='b.f'>f()</dt><dd><p>does f</p></dd></dl>"
    doc = page(html)
    md = doc.markdown()
    for name in ("a", "b", "b.f"):
        ref = doc.find(name)
        assert md[doc.unit_offset(ref) :].startswith(doc.unit_markdown(ref)[:5]), name


def test_an_id_that_starts_with_a_hash_resolves_bare_and_after_the_printed_hash():
    html = (
        "<h2 id='v'>Value Members</h2><dl><dt id='##():Int'>##(): Int</dt><dd><p>Hash code.</p></dd>"
        "<dt id='hashCode():Int'>hashCode(): Int</dt><dd><p>Hash.</p></dd></dl>"
    )
    doc = page(html)
    ids = [e.id for e in doc.sections[0].entries]
    assert "##():Int" in ids, ids
    want = (0, ids.index("##():Int"))
    for written in ("##():Int", "###():Int"):
        ref = doc.find(written)
        assert (ref.section, ref.entry) == want
    assert doc.find("#v").section == 0 and doc.find("v").entry == -1


def test_a_signature_naming_something_longer_than_any_api_name_defines_nothing():
    # A page's `<dt>ab.ab.…(64,000 times)x(y)</dt>` is no API; stored, its name was scanned at every search.
    html = f"<h1>T</h1><dl><dt>{'ab.' * 64_000}x(y)</dt><dd>Text.</dd><dt>json.dumps(obj)</dt><dd>Dump.</dd></dl>"
    assert [n for u in page(html).sections for n in u.names] == ["json.dumps"]
