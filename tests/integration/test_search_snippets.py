"""search_docs' snippets: a hit whose best section is a heading without text of its own still shows text."""

from __future__ import annotations

from pathlib import Path

import pytest

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser

PAGES = {
    # gi-docgen's shape: the title heading holds nothing, its subsections hold the words.
    "label-wrap.md": "# Gtk.Label.set_wrap_mode\n\n## Declaration\n\n## Description\n\n"
    "Controls how line wrapping is done: at word boundaries or at character boundaries.\n",
    "label.md": "# Gtk.Label\n\n## Description\n\nA widget that displays a small amount of text.\n",
}


@pytest.mark.anyio
async def test_a_hit_on_a_heading_without_text_shows_the_text_below_it(tmp_path: Path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in PAGES.items():
        (folder / name).write_text(text, encoding="utf-8")
    args = ["serve", "--source", f"docs={folder}", "--cache-dir", str(tmp_path / "c"), "--no-index"]
    app = App(parser().parse_args(args), workers=1)
    try:
        await app.indexer.run()
        hits = app.search.ranker.search("set_wrap_mode", 5, app.search.scope())
    finally:
        await app.fetcher.aclose()
        app.index.close()
    (hit,) = [h for h in hits if h.url.endswith("label-wrap.md")]
    assert hit.section_path == () and hit.section_id != "description"  # it points at the title heading
    assert "word boundaries or at character boundaries" in hit.snippet
