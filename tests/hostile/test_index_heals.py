"""Hostile: the index file is damaged while a server uses it. Page tools keep answering from the source,
the damage is said once, the file is moved aside, and a rebuild in the background brings search back."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser

SITE = Path(__file__).resolve().parents[2] / "fixtures" / "site"
pytestmark = [pytest.mark.anyio, pytest.mark.timeout(180)]
QUERY = "harmonic constituents fitted by least squares"


def app_for(cache: Path) -> App:
    return App(parser().parse_args(["serve", "--cache-dir", str(cache), "--source", str(SITE)]), workers=1)


def damage_all_but_the_header_page(path: Path) -> None:
    """A stray write over the file: the header page stays valid, every page after it is garbage."""
    data = path.read_bytes()
    page = int.from_bytes(data[16:18], "big")
    path.write_bytes(data[:page] + b"\xa5" * (len(data) - page))


async def test_a_file_damaged_while_serving_is_moved_aside_and_rebuilt_while_pages_still_answer(
    tmp_path, caplog
):
    cache = tmp_path / "cache"
    first = app_for(cache)
    await first.indexer.run()
    await first.tools.aclose()
    first.index.close()
    app = app_for(cache)
    damage_all_but_the_header_page(cache / "index.sqlite")  # while the server has it open
    app.loop = asyncio.get_running_loop()  # as the server does when it starts
    try:
        with caplog.at_level(logging.WARNING, logger="docs_mcp"):
            toc = await app.tools.get_doc_toc("big-reference.html")  # stored copy unreadable: from the source
            assert "Resampling with tidal harmonics" in toc
            section = await app.tools.get_doc_section("sphinx.html", "loading-data")
            assert "naive timestamps are interpreted as UTC" in section
        notices = [r.getMessage() for r in caplog.records if "damaged while in use" in r.getMessage()]
        assert len(notices) == 1, notices
        assert "moved aside to index.sqlite.damaged-" in notices[0]
        assert list(cache.glob("index.sqlite.damaged-*"))
        for _ in range(100):  # the rebuild is started on the loop by the thread that found the damage
            if app._rebuild is not None:
                break
            await asyncio.sleep(0.02)
        assert app._rebuild is not None
        await asyncio.wait_for(app._rebuild, 120)
        hits = await app.tools.search_docs(QUERY, 3)
        assert "big-reference.html" in hits
    finally:
        await app.tools.aclose()
        app.index.close()
