"""Both engines rank alike: the same index built into SQLite (FTS5) and into PostgreSQL gives the same hits,
sections, snippets and scores (SQLite's BM25, reproduced in SQL). Runs on a real PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SITE

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

#: Words FTS5 reads otherwise than our tokenizer: an apostrophe splits one, a Latin diacritic is dropped.
EXTRA = {
    "cafe.md": "# Café settings\n\n## Don't restart\n\nThe café gauge doesn't restart; don't touch its naïve clock.\n",
    "cjk.md": "# 潮位\n\n## 潮位データの読み込み\n\n潮位データを読み込む。読み込みは速い。\n",
    "api.md": "# API\n\n## tidepool.load\n\n`tidepool.load(path)` reads a tide table.\n\n## os.path\n\nPaths.\n",
}
QUERIES = [
    "harmonic constituents least squares",
    "Rayleigh criterion constituent",
    "潮位データ 読み込み",
    "configuration file",
    "how does tidepool.load handle time zones",
    "GaugeReader.validate_records() encoding",
    "don't restart the café gauge",
    "naive clock",
    "tide table path",
    "install",
]


def app_for(folder: Path, cache: Path, *extra: str) -> App:
    args = ["serve", "--source", f"docs={folder}", "--cache-dir", str(cache), "--no-index", *extra]
    return App(parser().parse_args(args), workers=1)


async def built(app: App) -> App:
    try:
        await app.indexer.run()
    finally:
        await app.fetcher.aclose()
    return app


@pytest.mark.anyio
async def test_postgres_ranks_every_query_exactly_as_sqlite(tmp_path, postgres_url):
    folder = tmp_path / "docs"
    folder.mkdir()
    for path in SITE.rglob("*"):
        if path.suffix in (".html", ".md"):
            target = folder / path.relative_to(SITE)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    for name, text in EXTRA.items():
        (folder / name).write_text(text, encoding="utf-8")
    sqlite = await built(app_for(folder, tmp_path / "c"))
    postgres = await built(app_for(folder, tmp_path / "unused", "--index-url", postgres_url))
    assert postgres.index.location.startswith("postgresql://")
    assert postgres.index.page_count() == sqlite.index.page_count() >= 20
    for query in QUERIES:
        for source in (None, "docs"):
            want = sqlite.search.search(query, 10, source)
            got = postgres.search.search(query, 10, source)
            assert want, query
            assert [(h.url, h.section_id, h.snippet) for h in got] == [
                (h.url, h.section_id, h.snippet) for h in want
            ], query
            assert [h.score for h in got] == pytest.approx([h.score for h in want], rel=1e-9), query
    postgres.index.close()
    sqlite.index.close()
