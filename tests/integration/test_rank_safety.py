"""Rank safety on a real index: the semantic blend never drops the only page holding the query as written."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from conftest import ranked_in_folder

from docs_mcp import settings
from docs_mcp.search.semantic.signal import active_model

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

#: The bodies of all 30 pages are drawn from these words: every page is about as near the query by meaning.
WORDS = [
    "unique",
    "term",
    "terms",
    "index",
    "word",
    "words",
    "page",
    "pages",
    "find",
    "search",
    "lookup",
    "term",
    "unique",
]


def alike_pages(folder: Path) -> None:
    """30 Markdown pages whose bodies look alike; `uniqueterm1x` is written in page01.md only, whose prose
    is otherwise about something else (so its vector is the farthest from the query's)."""
    rng = random.Random(4)
    folder.mkdir()
    for i in range(1, 31):
        body = " ".join(rng.choice(WORDS) for _ in range(60))
        if i == 1:
            body = (
                "The server reads its settings at start-up and keeps them in memory; " * 3 + " uniqueterm1x "
            )
            body += " ".join(rng.choice(WORDS) for _ in range(15))
        (folder / f"page{i:02d}.md").write_text(f"# Page {i}\n\n{body}\n", encoding="utf-8")


async def search(tmp_path: Path, query: str) -> list[str]:
    folder = tmp_path / "docs"
    if not folder.exists():
        alike_pages(folder)
    return await ranked_in_folder(folder, tmp_path / "c", query)


async def test_the_only_page_holding_the_query_term_is_listed_first(tmp_path):
    assert active_model() is not None  # the blend this guards against is on
    urls = await search(tmp_path, "uniqueterm1x")
    assert urls[0].endswith("page01.md")
    assert len(urls) == 5  # the pages nearest by meaning are still listed, below it


async def test_without_rank_safety_the_blend_drops_that_page(tmp_path, monkeypatch):
    monkeypatch.setattr(settings, "ABLATED", frozenset({"rank-safety"}))
    urls = await search(tmp_path, "uniqueterm1x")
    assert not any(u.endswith("page01.md") for u in urls)  # what the issue reported: five other pages
