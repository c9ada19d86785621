"""Inbound link words as search evidence: the words other pages of the site link to a page with count for that
page, though its own text never uses them; switched off by DOCS_MCP_ABLATE=anchors, gone when the links go."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import LocalSite

from docs_mcp import settings
from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser

# Link words are lexical evidence: measured here without the semantic blend.
pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("lexical_only")]

PAGE = (
    "<html><head><title>{title}</title></head><body><nav>{nav}</nav>"
    "<div role='main'><h1>{title}</h1>{body}</div></body></html>"
)
QUERY = "sextant mirror adjustment"
#: The page answering the question never names the instrument; the handbook's sidebar, which sends the reader
#: to it from every chapter, does (a sidebar is chrome: its words are no chapter's own text).
CARE = """<h2>Index error</h2><p>Set the index arm to zero and look at the horizon: when the reflected and
the direct horizon do not form one line, turn the adjustment screw of the index mirror until they do.</p>
<h2>Cleaning</h2><p>Wipe each mirror with a soft dry cloth; salt spray leaves a film that dims faint stars.</p>"""
LOG = """<h2>Noon entries</h2><p>Each noon the officer of the watch writes the latitude, the course and the
speed in the log, with the sextant altitude of the sun it was worked from, and signs the
entry. A mirror of the entries is kept ashore.</p><h2>Weather</h2><p>Wind, sea state and barometer every four
hours, with the cloud cover in eighths and the visibility in miles; a change of wind by more than two points is
entered when it happens, with the time.</p>"""
STARS = """<h2>Twilight sights</h2><p>Bring each star down to the horizon in turn, noting the time of each
sight to the second.</p>"""
SUN = """<h2>Noon sight</h2><p>The sun's altitude at its highest gives the latitude directly.</p>"""
CHAPTERS = [("stars", "Star sights"), ("sun", "Sun sights"), ("log", "The log"), ("care", "{care}")]


def write_site(docs: Path, care: str = "Sextant mirror adjustment", later: int = 0) -> None:
    """The handbook, its sidebar naming the care chapter `care`; `later`: its files dated that many seconds on
    (Last-Modified counts whole seconds: a rewrite within the second of the first crawl would revalidate as
    not modified, and the refresh would keep every page)."""
    docs.mkdir(exist_ok=True)
    nav = " ".join(f'<a href="{name}.html">{title}</a>' for name, title in CHAPTERS).format(care=care)
    pages = {
        "index.html": ("Navigator's Handbook", "<p>Sights, the log and the instruments.</p>"),
        "care.html": ("Instrument care", CARE),
        "log.html": ("The ship's log", LOG),
        "stars.html": ("Star sights", STARS),
        "sun.html": ("Sun sights", SUN),
    }
    for name, (title, body) in pages.items():
        (docs / name).write_text(PAGE.format(title=title, body=body, nav=nav), encoding="utf-8")
        if later:
            stamp = (docs / name).stat().st_mtime + later
            os.utime(docs / name, (stamp, stamp))


async def ranked(source: str, cache: Path, refresh: bool = False) -> list[str]:
    """The pages of the best three hits for QUERY, after indexing (or refreshing) the source."""
    app = App(parser().parse_args(["serve", "--cache-dir", str(cache), "--no-index", "--source", source]))
    try:
        await app.indexer.run(refresh=refresh)
        return [h.url.rsplit("/", 1)[-1] for h in app.search.search(QUERY, 3)]
    finally:
        await app.fetcher.aclose()
        app.index.close()


@pytest.fixture(autouse=True)
def links_alone(monkeypatch):
    """Closeness off: the care chapter says "adjustment … mirror" together, which would lift it on its own."""
    monkeypatch.setattr(settings, "ABLATED", frozenset({"proximity"}))


@pytest.fixture
def handbook(tmp_path):
    write_site(tmp_path / "docs")
    site = LocalSite(tmp_path / "docs")
    yield site
    site.stop()


async def test_a_page_other_pages_link_to_with_the_query_words_ranks_above_one_that_mentions_them(
    handbook, tmp_path
):
    hits = await ranked(handbook.url, tmp_path / "c")
    assert hits[0] == "care.html", hits
    assert "log.html" in hits  # holds each word once, and is still found


async def test_without_inbound_link_words_the_page_mentioning_the_words_comes_first(
    handbook, tmp_path, monkeypatch
):
    monkeypatch.setattr(settings, "ABLATED", frozenset({"anchors", "proximity"}))
    hits = await ranked(handbook.url, tmp_path / "c")
    assert hits[0] == "log.html", hits


async def test_a_refresh_after_the_links_went_away_takes_their_words_from_the_page(handbook, tmp_path):
    assert (await ranked(handbook.url, tmp_path / "c"))[0] == "care.html"
    write_site(handbook.directory, care="Care", later=10)
    hits = await ranked(handbook.url, tmp_path / "c", refresh=True)
    assert hits[0] == "log.html", hits
