"""Texinfo's navigation is not content: the Next / Previous / Up bar before each node (makeinfo's div.header,
Texinfo 7's div.nav-panel, texi2html's table.header) and a node's menu whose rows only name its subnodes; a menu
whose rows describe them stays, and so does Doxygen's div.header, which holds the page's title."""

from __future__ import annotations

import pytest
from conftest import FIXTURES

from docs_mcp import settings
from docs_mcp.convert.pipeline import build_document
from docs_mcp.fetch.fetching import RawPage
from docs_mcp.fetch.sources import Location, Source

PAGES = FIXTURES / "texinfo"


def read(page: str, generator: str | None = None) -> tuple[str, list[str]]:
    """The page's markdown and its units' text, as the pipeline makes them (`generator`: its meta's name
    replaced, "" for none)."""
    html = (PAGES / page).read_text()
    if generator is not None:
        html = html.replace('content="texi2any"', f'content="{generator}"')
    doc = build_document(RawPage(Location(Source("t", str(PAGES), True), page), html, "html"), page)
    return doc.markdown(include_code=True), [doc.own_markdown(i, True) for i in range(len(doc.sections))]


def test_makeinfos_node_line_is_dropped_and_its_menu_descriptions_stay():
    text, units = read("makeinfo.html")
    assert "Next:" not in text and "Previous:" not in text and "Up:" not in text and "[Contents]" not in text
    assert "Readings the logger lost are kept as gaps" in text
    assert "Moving heights between chart datum and mean sea level." in text  # the Top node's menu row
    # The bar before "2 Datums" no longer ends the Records section with its neighbours' names.
    records = next(u for u in units if "A record holds the water levels" in u)
    assert "Datums" not in records


def test_texi2htmls_arrow_bars_and_a_menu_without_descriptions_are_dropped():
    text, units = read("texi2html.html")
    assert "<<" not in text and ">>" not in text and "[ Up ]" not in text and "[Contents]" not in text
    assert "smooths what remains over a window of twenty-five hours" in " ".join(text.split())
    chapter = next(u for u in units if "Filters take a record" in u)
    assert "Surge Filter" not in chapter  # the menu row naming the subnode is gone from the chapter's unit


def test_texinfo_7s_nav_panel_and_mini_toc_are_dropped():
    text, _ = read("texinfo7.html")
    assert "Next:" not in text and "Exports" not in text and "[Index]" not in text
    assert "Station Codes" not in text and "Moving a Station" not in text
    assert "the interval at which its logger samples" in " ".join(text.split())


def test_doxygens_div_header_holding_the_pages_title_is_kept():
    text, _ = read("doxygen.html")
    assert "TideRecord Struct Reference" in text and "Data Fields" in text
    assert "One gauge's water levels" in text


def test_bars_and_menus_stay_when_the_mechanism_is_ablated(monkeypatch):
    monkeypatch.setattr(settings, "ABLATED", settings.ABLATED | {"texinfo-nav"})
    text, _ = read("texinfo7.html")
    assert "Next: Exports" in " ".join(text.split()) and "Moving a Station" in text


@pytest.mark.parametrize("generator", ["texi2any 7.1", "TEXI2HTML 1.82", "makeinfo 4.13"])
def test_each_texinfo_generators_pages_lose_their_bars(generator):
    text, _ = read("texinfo7.html", generator)
    assert "Next:" not in text and "Moving a Station" not in text


@pytest.mark.parametrize("generator", ["", "Doxygen 1.9.4", "mkdocs"])
def test_a_page_texinfo_did_not_write_keeps_a_bar_shaped_like_its(generator):
    # Only Texinfo's own pages are looked at for its bars: Javadoc's div.header matched them on every page.
    text, _ = read("texinfo7.html", generator)
    assert "Next: Exports" in " ".join(text.split()) and "Moving a Station" in text
