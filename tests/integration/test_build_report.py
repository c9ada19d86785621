"""What a build leaves behind and says: no lock files in the cache folder, discovery failures named with
their reason, and a site's own broken links counted as such (not as failures of docslice)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SITE

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser

pytestmark = pytest.mark.anyio


def app_for(cache: Path, *sources: str) -> App:
    args = ["serve", "--cache-dir", str(cache), "--no-index", "--timeout", "2", "--deadline", "5"]
    for s in sources:
        args += ["--source", s]
    return App(parser().parse_args(args), workers=1)


async def build(app: App):
    try:
        return await app.indexer.run()
    finally:
        await app.fetcher.aclose()


# --- the cache folder --------------------------------------------------------------------------------
async def test_a_build_leaves_no_lock_file_in_the_cache_folder(site, tmp_path):
    cache = tmp_path / "cache"
    app = app_for(cache, site.url, str(SITE))
    reports = await build(app)
    assert all(r.pages for r in reports)
    assert sorted(p.name for p in cache.iterdir() if "lock" in p.name) == []
