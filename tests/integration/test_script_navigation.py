"""A site whose pages are named only in its own scripts (Doxygen's menus and tree view) is crawled whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import LocalSite

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser

pytestmark = pytest.mark.anyio


def page(title: str, text: str) -> str:
    return (
        "<html><head><script type='text/javascript' src='menudata.js'></script>"
        "<script src='https://cdn.example/jquery.js'></script></head>"
        f"<body><div class='contents'><h1>{title}</h1><p>{text}</p></div></body></html>"
    )


def script_site(root: Path) -> Path:
    root.mkdir()
    (root / "index.html").write_text(page("Main page", "Welcome to the reference of the tide library."))
    (root / "menudata.js").write_text(
        "var menudata={children:[{text:'Files',url:'files.html'},{text:'Guide',url:\"d1/guide.html#intro\"}]};"
    )
    (root / "files.html").write_text(page("Files", "The header tide.h declares the gauge readers."))
    (root / "d1").mkdir()
    (root / "d1" / "guide.html").write_text(page("Guide", "Calibrate each gauge against the datum first."))
    return root


async def test_pages_named_only_in_the_sites_scripts_are_crawled_and_searchable(tmp_path):
    served = LocalSite(script_site(tmp_path / "site"))
    args = ["serve", "--cache-dir", str(tmp_path / "c"), "--no-index", "--source", served.url]
    app = App(parser().parse_args(args), workers=1)
    try:
        [report] = await app.indexer.run()
        assert report.pages == 3 and report.failed == 0  # the scripts themselves are not pages
        hits = await app.tools.search_docs("calibrate gauge against the datum", 3)
        assert "d1/guide.html" in hits
    finally:
        await app.tools.aclose()
        app.index.close()
        served.stop()
