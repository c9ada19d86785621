"""The site's own words for a weakly matched question (issue 42, item 4): search_docs names, on one line, the
headings and defined names of the candidates' sections holding most of the query's words, for the agent's
next query. Off unless DOCSLICE_SITE_TERMS=on (the tuning halves showed no gain: docs/benchmarks.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from docs_mcp import settings
from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser
from docs_mcp.search.site import vocabulary
from docs_mcp.tools.search_answer import SITE_TERMS

pytestmark = pytest.mark.anyio

PAGES = {
    "install.md": "# Installing packages\n\nPackages install into a library tree with install.packages().\n\n"
    "## Examples\n\ninstall.packages('x') puts x into the first library tree.\n",
    "libpaths.md": "# Library trees\n\nA library tree is a folder of installed packages; .libPaths() lists "
    "them.\n\n## Examples\n\n.libPaths('renv/library') puts a project's packages first.\n\n"
    "## Project libraries\n\nA project library isolates the packages one project uses from every other "
    "project's packages.\n",
    "export.md": "# Writing data\n\nwrite.csv() writes a data frame as CSV; write.table() any delimiter.\n",
    "plots.md": "# Graphics devices\n\nA device draws plots: png(), pdf() and svg() open one.\n",
    "renv.md": "# Project environments\n\nrenv records a project's state.\n\n## Lockfiles\n\nrenv::snapshot() "
    "writes the packages a project uses to a lockfile; each project's library stays isolated.\n",
}


@pytest.fixture
def terms_on(monkeypatch):
    monkeypatch.setattr(settings, "SITE_TERMS_ON", True)
    # Only the words decide here: how near a page is in meaning depends on the model installed.
    monkeypatch.setattr(vocabulary, "SITE_TERMS_COSINE", 2.0)


async def search_docs(tmp_path: Path, query: str, hits: int = 1) -> str:
    folder = tmp_path / "docs"
    folder.mkdir(exist_ok=True)
    for name, text in PAGES.items():
        (folder / name).write_text(text, encoding="utf-8")
    args = ["serve", "--source", f"docs={folder}", "--cache-dir", str(tmp_path / "c"), "--no-index"]
    app = App(parser().parse_args(args), workers=1)
    try:
        await app.indexer.run()
        return await app.tools.search_docs(query, hits)
    finally:
        await app.fetcher.aclose()
        app.index.close()


def named(out: str) -> list[str]:
    """The terms on search_docs' line after SITE_TERMS, in order."""
    line = out.split(SITE_TERMS, 1)[1].split("\n", 1)[0]
    return [t.strip().strip('"') for t in line.split(" · ")]


async def test_a_question_in_another_tools_words_gets_the_headings_of_sections_holding_its_words(
    tmp_path: Path, terms_on
):
    # virtualenv and pip are not the site's words. Two sections hold both the words it has (isolate,
    # packages): one is the hit, the other is named first.
    out = await search_docs(tmp_path, "virtualenv isolate pip packages")
    head, _, hit = out.partition("\n\n1. ")
    assert SITE_TERMS in head and head.count("\n") == 1  # one line under the header
    terms = named(out)
    assert {terms[0], hit.split("\n", 1)[0].split(" — ")[-1]} == {"Project libraries", "Lockfiles"}
    # Nothing the hit already shows, nor a heading several sections share.
    assert "Examples" not in terms and all(t not in hit.split("\n", 1)[0] for t in terms)


async def test_a_question_in_the_sites_words_gets_no_terms(tmp_path: Path, terms_on):
    out = await search_docs(tmp_path, "library tree installed packages")
    assert SITE_TERMS not in out and "\n\n1. " in out


async def test_the_terms_are_off_unless_switched_on(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(vocabulary, "SITE_TERMS_COSINE", 2.0)
    assert SITE_TERMS not in await search_docs(tmp_path, "virtualenv isolate pip packages")


async def test_an_ablation_switches_the_terms_off(tmp_path: Path, terms_on, monkeypatch):
    monkeypatch.setattr(settings, "ABLATED", settings.ABLATED | {"site-terms"})
    assert SITE_TERMS not in await search_docs(tmp_path, "virtualenv isolate pip packages")
