"""A version the query writes ("Django 1.8.2 release notes") finds the page titled with that version: the
tokenizer cuts `1.8.2` into pieces every release page holds, so the title is read as written. A version every
title writes (the site's own, in each page's title) tells no page apart; `1.8.2` is not in `1.8.20`. Both
engines."""

from __future__ import annotations

from pathlib import Path

import pytest

from docs_mcp import settings
from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser
from docs_mcp.search.site import evidence
from docs_mcp.store.interface import Scope

pytestmark = pytest.mark.anyio

RELEASES = [
    "1.4.19",
    "1.5.11",
    "1.6.8",
    "1.7.5",
    "1.8.2",
    "1.8.9",
    "1.8.20",
    "2.0.1",
    "2.2.1",
    "3.0.8",
    "3.2.25",
]


def release_page(version: str) -> str:
    title = f"Django {version} release notes — Django 3.2.25 documentation"
    body = (
        f"<h1>Django {version} release notes</h1><p>Django {version} fixes several bugs in the previous "
        "release notes and a security issue.</p><h2>Bugfixes</h2><p>Fixed a regression in the admin's release "
        "notes listing; fixed a crash in the notes view.</p>"
    )
    return f"<html><head><title>{title}</title></head><body><main>{body}</main></body></html>"


def write_site(folder: Path) -> None:
    folder.mkdir()
    for version in RELEASES:
        (folder / f"{version}.html").write_text(release_page(version), encoding="utf-8")


async def built(folder: Path, cache: Path, *extra: str) -> App:
    args = ["serve", "--source", f"django={folder}", "--cache-dir", str(cache), "--no-index", *extra]
    app = App(parser().parse_args(args), workers=1)
    try:
        await app.indexer.run()
    finally:
        await app.fetcher.aclose()
    return app


def pages(app: App, query: str) -> list[str]:
    return [h.url.rsplit("/", 1)[-1] for h in app.search.search(query, 5)]


QUERIES = [
    ("Django 1.8.2 release notes", "1.8.2.html"),
    ("Django 1.8.2 release notes — Django 3.2.25 documentation", "1.8.2.html"),
    ("release notes v1.6.8", "1.6.8.html"),
    ("what changed in 2.0.1", "2.0.1.html"),
]


@pytest.mark.parametrize(("query", "page"), QUERIES)
async def test_the_page_titled_with_the_queried_version_comes_first(tmp_path, query, page):
    write_site(tmp_path / "docs")
    app = await built(tmp_path / "docs", tmp_path / "cache")
    assert pages(app, query)[0] == page
    app.index.close()


def lead(app: App, query: str, page: str) -> float:
    """How far the page's score is above the best other page's (below it: negative; not found: -1)."""
    hits = {h.url.rsplit("/", 1)[-1]: h.score for h in app.search.search(query, 10)}
    others = [score for name, score in hits.items() if name != page]
    return hits[page] - max(others, default=0.0) if page in hits else -1.0


async def test_without_the_mechanism_the_queried_release_leads_by_less_and_others_come_first(
    tmp_path, monkeypatch
):
    write_site(tmp_path / "docs")
    app = await built(tmp_path / "docs", tmp_path / "cache")
    leads = {q: lead(app, q, page) for q, page in QUERIES}
    monkeypatch.setattr(settings, "ABLATED", settings.ABLATED | {"versions"})
    ablated = {q: lead(app, q, page) for q, page in QUERIES}
    assert all(ablated[q] < leads[q] for q, _ in QUERIES), (leads, ablated)
    # The other releases' pages tie on words alone, and which of them comes first follows signals (meaning,
    # which copy is kept) that vary with the order the pages were written in: not every query loses its page.
    firsts = [(pages(app, q) or ["nothing"])[0] for q, _ in QUERIES]
    assert sum(first != page for first, (_, page) in zip(firsts, QUERIES, strict=True)) >= 2, firsts
    app.index.close()


async def test_a_version_every_title_writes_or_none_does_moves_nothing(tmp_path, monkeypatch):
    write_site(tmp_path / "docs")
    app = await built(tmp_path / "docs", tmp_path / "cache")
    for query in (
        "Django 3.2.25 documentation release notes",
        "Django 9.9.9 release notes",
        "Django 1.8 notes",
    ):
        with_versions = pages(app, query)
        monkeypatch.setattr(settings, "ABLATED", settings.ABLATED | {"versions"})
        assert pages(app, query) == with_versions, query
        monkeypatch.setattr(settings, "ABLATED", settings.ABLATED - {"versions"})
    app.index.close()


@pytest.mark.postgres
@pytest.mark.slow
async def test_postgres_finds_the_queried_version_as_sqlite_does(tmp_path, postgres_url):
    write_site(tmp_path / "docs")
    sqlite = await built(tmp_path / "docs", tmp_path / "c1")
    postgres = await built(tmp_path / "docs", tmp_path / "c2", "--index-url", postgres_url)
    for query, page in QUERIES:
        # The first hit; further down, release pages tie, and the engines break ties by their own row order.
        assert pages(postgres, query)[0] == pages(sqlite, query)[0] == page, query
    sqlite.index.close()
    postgres.index.close()


@pytest.mark.parametrize("first", [2, evidence.VERSION_FIRST])
async def test_a_version_one_title_writes_among_longer_ones_is_found_past_the_first_read(
    tmp_path, monkeypatch, first
):
    # Every title holds `3.2` as LIKE reads it (`3.2.1` ... `3.2.9`); one title writes 3.2 itself.
    (tmp_path / "docs").mkdir()
    for version in ["3.2", *(f"3.2.{n}" for n in range(1, 10))]:
        (tmp_path / "docs" / f"{version}.html").write_text(release_page(version), encoding="utf-8")
    app = await built(tmp_path / "docs", tmp_path / "cache")
    monkeypatch.setattr(evidence, "VERSION_FIRST", first)
    scope = Scope.of(app.sources.sources)
    with app.index.reading() as reads:
        found = evidence.versioned_pages(reads, "Django 3.2 release notes", scope)
        titles = dict(reads.titled_pages("3.2", scope, 20))
    assert {titles[pid]: share for pid, share in found.items()} == {"Django 3.2 release notes": 1.0}
    app.index.close()
