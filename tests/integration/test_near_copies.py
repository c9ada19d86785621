"""Copies told apart from the pages they copy when the copy is not word for word (fixtures/copies): an
all-in-one page renumbers the chapters' headings, renames their ids, points their links at itself, leaves out
the closing line each chapter section has, and holds each chapter's heading with no text of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from docs_mcp import settings
from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser
from docs_mcp.model.hits import SearchHit
from docs_mcp.search.site.copies import fold_copies
from docs_mcp.text.terms import query_terms

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

SITE = Path(__file__).resolve().parents[2] / "fixtures" / "copies"


async def indexed(cache: Path) -> App:
    app = App(parser().parse_args(["serve", "--cache-dir", str(cache), "--no-index", "--source", str(SITE)]))
    try:
        await app.indexer.run()
    finally:
        await app.fetcher.aclose()
    return app


async def search(cache: Path, query: str, limit: int) -> list[SearchHit]:
    app = await indexed(cache)
    try:
        return app.search.search(query, limit)
    finally:
        app.index.close()


QUERY = "calibrating tides gauges spring reference instrument"


@pytest.mark.usefixtures("lexical_only")
async def test_an_all_in_one_page_without_the_chapters_closing_lines_is_folded_into_the_chapter(tmp_path):
    hits = await search(tmp_path / "c", QUERY, 2)
    assert hits[0].url == "tides.html" and hits[0].section_id == "calibrating-tides-gauges"
    assert "all.html" not in [h.url for h in hits]


@pytest.mark.usefixtures("lexical_only")
async def test_told_by_whole_texts_alone_the_all_in_one_page_takes_the_second_slot(tmp_path, monkeypatch):
    monkeypatch.setattr(settings, "ABLATED", frozenset({"trimmed-digests"}))
    hits = await search(tmp_path / "c", QUERY, 2)
    assert [h.url for h in hits] == ["tides.html", "all.html"]  # what the audit saw on SQLite's capi3ref.html


async def test_a_chapter_heading_with_no_text_of_its_own_in_an_all_in_one_page_points_at_the_chapter(
    tmp_path,
):
    # The hit's best section is "Chapter 4. Tides" (renumbered, its id renamed), whose text is all in the
    # sections under it: too short to have a digest of its own (texi2html's maxima_singlepage.html, Node's
    # all.html, mdBook's print.html).
    app = await indexed(tmp_path / "c")
    scope = app.search.scope()
    try:
        with app.index.reading() as reads:
            pages = reads.page_rows(p for p, _ in reads.page_matches(query_terms("tides"), scope, 20))
            keys = {Path(r.key).name: r.id for r in pages}
            page = keys["all.html"]
            ids = reads.section_ids_at([(page, o) for o in range(20)])
            [heading] = [r.id for r in reads.section_rows(ids.values()) if r.anchor == "chap-4"]
            folded = fold_copies(reads, [page], {page: heading}, {page: 1.0}, {page: scope.prefixes[0]})
            [target] = folded.ranked
            [row] = reads.section_rows([folded.section_of[target]])
    finally:
        app.index.close()
    assert target == keys["tides.html"] and row.anchor == "logging-tides"


async def test_two_releases_notes_differing_only_in_their_closing_lines_stay_two_hits(tmp_path):
    hits = await search(tmp_path / "c", "gauge float drift winter readings", 2)
    assert sorted(Path(h.url).name for h in hits) == ["notes-2.1.3.html", "notes-2.2.1.html"]
    assert not any(h.also for h in hits)


async def test_chapters_sharing_a_closing_line_are_not_copies_of_each_other(tmp_path):
    hits = await search(tmp_path / "c", "calibrating winds gauges tunnel coast office", 3)
    assert hits[0].url == "winds.html" and hits[0].section_id == "calibrating-winds-gauges"
    assert not hits[0].also and len({h.url for h in hits}) == len(hits)
