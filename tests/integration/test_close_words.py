"""The query's words near each other count: of two pages holding the same words, the one whose section says
them together ranks first, though the other holds them more often; switched off by DOCS_MCP_ABLATE=proximity."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import LocalSite

from docs_mcp import settings
from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser

# Closeness is lexical evidence: measured here without the semantic blend.
pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("lexical_only")]

PAGE = "<html><head><title>{title}</title></head><body><div role='main'><h1>{title}</h1>{body}</div></body></html>"
QUERY = "tide gauge calibration"
#: Says the three words together, once each.
GAUGES = """<h2>Before the season</h2><p>Tide gauge calibration is done against the benchmark on the quay
wall: level the staff, read it at slack water and set the recorder's zero to that reading. Note the date, the
reading and the name of whoever did it in the station book, which stays in the hut.</p>"""
#: Holds each word twice, never two of them together.
HARBOUR = """<h2>Works</h2><p>The tide tables for the outer basin are printed each spring. The old gauge
by the lock gates was taken down when the wall was rebuilt. Dredging of the channel follows the tide
tables; the dredger's calibration is the contractor's own. Another gauge stands at the fish market. Any
calibration of instruments on the wall needs the harbour master's leave.</p>"""


@pytest.fixture
def harbour(tmp_path: Path):
    docs = tmp_path / "docs"
    docs.mkdir()
    pages = {
        "index.html": (
            "Port handbook",
            '<p><a href="gauges.html">Instruments</a> <a href="harbour.html">Harbour</a></p>',
        ),
        "gauges.html": ("Instruments", GAUGES),
        "harbour.html": ("Harbour", HARBOUR),
    }
    for name, (title, body) in pages.items():
        (docs / name).write_text(PAGE.format(title=title, body=body), encoding="utf-8")
    site = LocalSite(docs)
    yield site
    site.stop()


async def ranked(source: str, cache: Path) -> list[str]:
    """The pages of the best hits for QUERY, after indexing the source."""
    app = App(parser().parse_args(["serve", "--cache-dir", str(cache), "--no-index", "--source", source]))
    try:
        await app.indexer.run()
        return [h.url.rsplit("/", 1)[-1] for h in app.search.search(QUERY, 3)]
    finally:
        await app.fetcher.aclose()
        app.index.close()


async def test_the_page_saying_the_query_words_together_ranks_above_one_scattering_them(harbour, tmp_path):
    hits = await ranked(harbour.url, tmp_path / "c")
    assert hits[:2] == ["gauges.html", "harbour.html"], hits


async def test_without_proximity_the_page_holding_the_words_more_often_comes_first(
    harbour, tmp_path, monkeypatch
):
    monkeypatch.setattr(settings, "ABLATED", frozenset({"proximity"}))
    hits = await ranked(harbour.url, tmp_path / "c")
    assert hits[0] == "harbour.html", hits
