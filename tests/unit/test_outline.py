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


def test_a_level_too_big_to_show_whole_fills_the_cap_in_document_order_and_says_how_many_are_left_out():
    # Qt's qstring.html: 11 h2s and 354 function h3s; the h3s once went all at once, leaving 834 of 20,000 chars.
    html = "".join(
        f"<h2 id='g{k}'>Group {k}</h2><p>About group {k}.</p>"
        + "".join(f"<h3 id='g{k}-m{j}'>Member {j} of group {k}</h3><p>Does {j}.</p>" for j in range(100))
        for k in range(3)
    )
    out = page_outline(page(html), 5_000)
    ids = [line.rsplit("#", 1)[1].split()[0] for line in out.splitlines() if line.lstrip().startswith("- ")]
    members = [f"g{k}-m{j}" for k in range(3) for j in range(100)]
    shown = [i for i in ids if "-m" in i]
    assert [i for i in ids if "-m" not in i] == ["g0", "g1", "g2"]
    assert 0 < len(shown) < 300 and shown == members[: len(shown)]
    in_page = [i for k in range(3) for i in (f"g{k}", *members[100 * k : 100 * k + 100])]
    assert ids == [i for i in in_page if i in ids]  # the outline keeps the page's order
    assert 5_000 - 60 < len(out) <= 5_000  # filled: the next member's line would not fit
    assert out.endswith(
        f"\n[{300 - len(shown)} of 300 headings deeper than h2 omitted to fit 5,000 chars "
        f"(the first {len(shown)} are shown); search_in_doc finds the others by their words]"
    )
