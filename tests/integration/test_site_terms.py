"""The site's own words for a weakly matched question (issue 42, item 4): search_docs names, on one line, entries
of the site's keyword index (the words its authors filed a page under, which the page may not use) holding the
query's words, filed under pages the hits do not show. Off unless DOCSLICE_SITE_TERMS=on (docs/benchmarks.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from docs_mcp import settings
from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser
from docs_mcp.tools.search_answer import SITE_TERMS

# Weakness is judged by words alone here: how near a page is in meaning depends on the model installed.
pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("lexical_only")]

PAGE = "<html><head><title>{title}</title></head><body><div role='main'><h1>{title}</h1>{body}</div></body></html>"
PAGES = {
    "index.html": (
        "Manual",
        '<p><a href="locking.html">Locks</a> <a href="timeouts.html">Timeouts</a> <a href="genindex.html">Index</a></p>',
    ),
    "locking.html": (
        "Explicit Locking",
        "<p>Most commands take a lock on the table they use. A lock is held until the transaction ends; a deploy "
        "that waits on a lock blocks everyone queued behind it.</p>",
    ),
    # Never says "give up": the index files it under those words.
    "timeouts.html": (
        "Statement timeouts",
        '<section id="lock-timeout"><h2>lock_timeout</h2><p>Abort any statement that waits longer than the '
        "specified amount of time while attempting to acquire a lock on a table.</p></section>",
    ),
}
GENINDEX = (
    "Index",
    '<table class="indextable genindextable"><tr><td><ul>'
    '<li><a href="timeouts.html#lock-timeout">give up waiting for a lock</a></li>'
    '<li><a href="locking.html">locking</a></li></ul></td></tr></table>',
)
WEAK = "stop a deploy hanging forever on a lock"


@pytest.fixture
def terms_on(monkeypatch):
    monkeypatch.setattr(settings, "SITE_TERMS_ON", True)


async def search_docs(tmp_path: Path, query: str, index: bool = True) -> str:
    folder = tmp_path / "docs"
    folder.mkdir(exist_ok=True)
    for name, (title, body) in (PAGES | ({"genindex.html": GENINDEX} if index else {})).items():
        (folder / name).write_text(PAGE.format(title=title, body=body), encoding="utf-8")
    args = ["serve", "--source", f"docs={folder}", "--cache-dir", str(tmp_path / "c"), "--no-index"]
    app = App(parser().parse_args(args), workers=1)
    try:
        await app.indexer.run()
        return await app.tools.search_docs(query, 1)
    finally:
        await app.fetcher.aclose()
        app.index.close()


def named(out: str) -> list[str]:
    """The terms on search_docs' line after SITE_TERMS, in order."""
    line = out.split(SITE_TERMS, 1)[1].split("\n", 1)[0]
    return [t.strip().strip('"') for t in line.split(" · ")]


async def test_a_weak_match_names_the_index_entry_filing_a_page_under_words_it_never_uses(
    tmp_path: Path, terms_on
):
    out = await search_docs(tmp_path, WEAK)
    head, _, hit = out.partition("\n\n1. ")
    assert SITE_TERMS in head and head.count("\n") == 1  # one line under the header
    assert hit.startswith("Explicit Locking")
    # The entry for the page not shown, as the index stores it (stemmed, stopwords out); not the one of the page
    # shown ("locking").
    assert named(out) == ["give wait lock"]


async def test_a_question_in_the_sites_words_gets_no_terms(tmp_path: Path, terms_on):
    out = await search_docs(tmp_path, "deploy waits on a lock blocks everyone queued")
    assert SITE_TERMS not in out and "\n\n1. " in out


async def test_a_site_without_a_keyword_index_gets_no_terms(tmp_path: Path, terms_on):
    out = await search_docs(tmp_path, WEAK, index=False)
    assert SITE_TERMS not in out and "\n\n1. Explicit Locking" in out


async def test_the_terms_are_off_unless_switched_on(tmp_path: Path):
    assert SITE_TERMS not in await search_docs(tmp_path, WEAK)


async def test_an_ablation_switches_the_terms_off(tmp_path: Path, terms_on, monkeypatch):
    monkeypatch.setattr(settings, "ABLATED", settings.ABLATED | {"site-terms"})
    assert SITE_TERMS not in await search_docs(tmp_path, WEAK)
