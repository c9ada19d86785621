"""outline: headings with ids and sizes, and the definitions each section holds, within the cap."""

from __future__ import annotations

import lxml.html
import pytest

from docs_mcp.convert.outline import definitions_line, page_outline
from docs_mcp.convert.render import render_section
from docs_mcp.convert.sections import split_html
from docs_mcp.model.document import Document


def page(html: str) -> Document:
    return Document(
        "p.html",
        "src",
        "Page",
        tuple(split_html(lxml.html.fragment_fromstring(html, create_parent="div"))),
        render=render_section,
    )


def api(n: int, prefix: str = "mod.") -> str:
    return "".join(f"<dt id='{prefix}f{k}'>{prefix}f{k}(x)</dt><dd><p>Does {k}.</p></dd>" for k in range(n))


def test_a_shared_id_prefix_is_written_once():
    doc = page(f"<h2 id='fns'>Functions</h2><dl>{api(3)}</dl>")
    assert definitions_line(doc.sections[0]) == " · defines #mod.{f0, f1, f2}"


def test_names_that_the_ids_do_not_say_are_shown_with_their_ids():
    html = "<h2>P</h2><dl><dt id='SQL-TEMP'>TEMPORARY or TEMP</dt><dd><p>x</p></dd><dt id='SQL-UNLOGGED'>UNLOGGED</dt><dd><p>y</p></dd></dl>"
    assert (
        definitions_line(page(html).sections[0]) == " · defines TEMPORARY or TEMP #SQL-TEMP · #SQL-UNLOGGED"
    )


@pytest.mark.slow
def test_definitions_fold_into_counts_longest_first_and_the_outline_says_so():
    html = f"<h2 id='big'>Big</h2><dl>{api(2000, 'package.module.Class.')}</dl><h2 id='small'>Small</h2><dl>{api(2)}</dl>"
    out = page_outline(page(html), 20_000)
    assert "- Big #big (" in out and ") · 2,000 definitions" in out
    assert "#mod.{f0, f1}" in out
    assert "[2,000 definitions shown as counts" in out
    assert len(out) < 5_000


def test_a_page_level_unit_after_the_sections_is_read_and_listed_last():
    doc = page(
        "<p>Lead words.</p><div class='section' id='a'><h2>Alpha</h2><p>Alpha words.</p></div>"
        "<div class='section' id='b'><h2>Beta</h2><p>Beta words.</p></div><p>Copyright footer.</p>"
    )
    md = doc.markdown()
    assert (
        md.index("Lead words.") < md.index("## Alpha") < md.index("## Beta") < md.index("Copyright footer.")
    )
    assert page_outline(doc, 20_000).splitlines()[2:] == [
        "- (intro) #top (11)",
        "  - Alpha #a (22)",
        "  - Beta #b (20)",
        "- (untitled) #end (17)",
    ]
