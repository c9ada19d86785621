"""Pages that repeat other pages, told at index time by their sections' digests: an all-in-one page's hit
points at the page it copies; one item under two paths is one hit naming both addresses."""

from __future__ import annotations

from pathlib import Path

import pytest

from docs_mcp import settings
from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser
from docs_mcp.model.hits import SearchHit

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

TOPICS = ("tides", "winds", "rains", "snows", "fogs", "frosts")


def chapter(name: str) -> str:
    return (
        f"# {name.title()}\n\n## Logging {name}\n\nEach {name} station logs its readings every six minutes "
        f"and keeps a year of them.\n\n## Calibrating {name} gauges\n\nA {name} gauge is calibrated each "
        "spring against the reference instrument of its district.\n"
    )


async def search(docs: Path, cache: Path, query: str, limit: int) -> list[SearchHit]:
    app = App(parser().parse_args(["serve", "--cache-dir", str(cache), "--no-index", "--source", str(docs)]))
    try:
        await app.indexer.run()
    finally:
        await app.fetcher.aclose()
    try:
        return app.search.search(query, limit)
    finally:
        app.index.close()


def book(tmp_path: Path) -> Path:
    """Six chapters and the book's print-everything page, which holds each chapter's sections verbatim and
    names every topic in its title and headings (its page-level match is the strongest)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in TOPICS:
        (docs / f"{name}.md").write_text(chapter(name))
    whole = "\n".join(chapter(n).replace("# ", "## ", 1).replace("\n## ", "\n### ") for n in TOPICS)
    (docs / "print.md").write_text(f"# Tides, winds and all weather: the whole book\n\n{whole}")
    return docs


async def test_a_hit_inside_an_all_in_one_page_points_at_the_chapter_it_copies(tmp_path):
    [hit] = await search(book(tmp_path), tmp_path / "c", "calibrating tides gauges spring", 1)
    assert hit.url.endswith("tides.md") and hit.section_id == "calibrating-tides-gauges"


@pytest.mark.usefixtures("lexical_only")
async def test_without_the_digests_the_all_in_one_page_takes_the_slot(tmp_path, monkeypatch):
    # Lexical alone: its page-level match is the strongest. (With the semantic blend, the closeness bonus both
    # pages share widens the six pages' spread, and the chapter's cosine can then decide on this small book.)
    monkeypatch.setattr(settings, "ABLATED", frozenset({"aggregates"}))
    [hit] = await search(book(tmp_path), tmp_path / "c", "calibrating tides gauges spring", 1)
    assert hit.url.endswith("print.md")  # what the issue saw: the chapter is gone


async def test_one_item_under_two_paths_is_one_hit_naming_both_addresses(tmp_path):
    docs = tmp_path / "docs"
    for module in ("tidepool/io", "tidepool/compat"):
        (docs / module).mkdir(parents=True)
        body = chapter("tides").replace("# Tides", f"# {module.replace('/', '.')}.TideReader", 1)
        (docs / module / "TideReader.md").write_text(body)
    (docs / "winds.md").write_text(chapter("winds"))
    hits = await search(docs, tmp_path / "c", "tides station logs readings", 2)
    assert len(hits) == 2 and hits[1].url.endswith("winds.md")
    [first] = [h for h in hits if h.url.endswith("TideReader.md")]
    assert len(first.also) == 1 and first.also[0].endswith("TideReader.md") and first.also[0] != first.url


def test_an_item_under_many_paths_names_three_of_them_and_a_count():
    from docs_mcp.tools.search_answer import answer

    also = tuple(f"http://127.0.0.1/mod{i}/TideReader.html" for i in range(1, 21))
    hit = SearchHit(
        "http://127.0.0.1/mod0/TideReader.html", "TideReader", "", (), "Reads tides.", "", 0.0, 1.0, also
    )
    text = answer("tide reader", [hit], "index: 21 pages", False, None, 20_000)
    assert f"also at: {', '.join(also[:3])} (+17 more)" in text and also[3] not in text
