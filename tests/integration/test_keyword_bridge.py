"""The site's own keyword index as a bridge: a query in the index's words finds the page it files them under,
though that page never uses them."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import LocalSite

from docs_mcp import settings
from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser
from docs_mcp.store.interface import Scope

# The bridge and the site-name discount are lexical: measured here without the semantic blend.
pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("lexical_only")]

PAGE = "<html><head><title>{title}</title></head><body><div role='main'><h1>{title}</h1>{body}</div></body></html>"
CLIENT = """<div class="sect2" id="RUNTIME-CONFIG-CLIENT-STATEMENT"><h2>Statement Behavior</h2>
<dl><dt id="GUC-LOCK-TIMEOUT"><code>lock_timeout</code> (integer)</dt>
<dd><p>Abort any statement that waits longer than the specified amount of time while attempting to acquire a
lock on a table, index, row, or other database object.</p></dd></dl></div>"""
LOCKING = """<h2>Table-Level Locks</h2><p>Most commands take a lock on the table they use. A lock is held until
the transaction ends; a deploy that waits on a lock blocks everyone queued behind it, each waiting for the
lock in turn.</p>"""
BOOKINDEX = """<div class="index"><div class="indexdiv"><h3>G</h3><dl>
<dt id="ientry-1">give up waiting for a lock, <a class="indexterm"
  href="config-client.html#GUC-LOCK-TIMEOUT">Statement Behavior</a></dt>
<dt id="ientry-2">locking, <a class="indexterm" href="locking.html">Explicit Locking</a></dt>
</dl></div></div>"""


def write_site(docs: Path) -> Path:
    docs.mkdir()
    pages = {
        "index.html": (
            "Manual",
            '<p><a href="config-client.html">Client</a> <a href="locking.html">Locks</a> <a href="bookindex.html">Index</a></p>',
        ),
        "config-client.html": ("Client Connection Defaults", CLIENT),
        "locking.html": ("Explicit Locking", LOCKING),
        "bookindex.html": ("Index", BOOKINDEX),
    }
    for name, (title, body) in pages.items():
        (docs / name).write_text(PAGE.format(title=title, body=body), encoding="utf-8")
    return docs


async def ranked(source: str, cache: Path, query: str) -> tuple[list[tuple[str, str]], set[str]]:
    """(page, section) of the best three hits, and the pages indexed."""
    app = App(parser().parse_args(["serve", "--cache-dir", str(cache), "--no-index", "--source", source]))
    try:
        await app.indexer.run()
        pages = {p.key.rsplit("/", 1)[-1] for p in app.index.pages(Scope.of(app.sources.sources))}
        return [(h.url.rsplit("/", 1)[-1], h.section_id) for h in app.search.search(query, 3)], pages
    finally:
        await app.fetcher.aclose()
        app.index.close()


@pytest.mark.parametrize("served", [False, True], ids=["folder", "http"])
async def test_the_index_files_a_page_under_words_it_never_uses(tmp_path, served):
    docs = write_site(tmp_path / "docs")
    site = LocalSite(docs) if served else None
    try:
        source = site.url if site else str(docs)
        hits, pages = await ranked(source, tmp_path / "c", "give up waiting for a lock")
    finally:
        if site:
            site.stop()
    assert hits[0] == ("config-client.html", "RUNTIME-CONFIG-CLIENT-STATEMENT"), hits
    # Crawled for its entries, never a result.
    assert "bookindex.html" in pages and "bookindex.html" not in [page for page, _ in hits]


async def test_without_the_bridge_the_page_using_the_words_wins(tmp_path, monkeypatch):
    monkeypatch.setattr(settings, "ABLATED", frozenset({"index-bridge"}))
    docs = write_site(tmp_path / "docs")
    hits, _ = await ranked(str(docs), tmp_path / "c", "give up waiting for a lock")
    assert hits[0][0] == "locking.html", hits


def write_named_site(docs: Path) -> Path:
    """A site named on its home page; a program page whose title is the site's short name."""
    docs.mkdir()
    pages = {
        "index.html": ("Tidepoolql 3.1 Documentation", '<p><a href="gauges.html">Gauges</a></p>'),
        "gauges.html": (
            "Gauge drift",
            "<h2>Drift</h2><p>A gauge drifts as its float wears; recalibrate.</p>",
        ),
        "app-tidepool.html": (
            "tidepool",
            "<h2>Description</h2><p>tidepool starts the server; a gauge may drift.</p>",
        ),
    }
    for name, (title, body) in pages.items():
        (docs / name).write_text(PAGE.format(title=title, body=body), encoding="utf-8")
    return docs


@pytest.mark.parametrize("on", [True, False], ids=["discounted", "ablated"])
async def test_a_word_naming_the_site_does_not_pick_the_page_titled_with_it(tmp_path, monkeypatch, on):
    monkeypatch.setattr(settings, "ABLATED", frozenset() if on else frozenset({"site-name"}))
    docs = write_named_site(tmp_path / "docs")
    hits, _ = await ranked(str(docs), tmp_path / "c", "why does my gauge drift in tidepool")
    assert hits[0][0] == ("gauges.html" if on else "app-tidepool.html"), hits
