"""A query that spells a qualified name as words (`pathlib glob`, `json dumps`) finds the page of the module
its first word names, pointed at the section defining the name: not another module's page that mentions
it, nor a listing of every name, nor the module's command-line options."""

from __future__ import annotations

from pathlib import Path

import pytest

from docs_mcp import settings
from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser

pytestmark = pytest.mark.anyio


def sphinx_page(title: str, body: str) -> str:
    return f"<html><head><title>{title}</title></head><body><main><h1>{title}</h1>{body}</main></body></html>"


def entry(module: str, prename: str, name: str, text: str) -> str:
    """A Sphinx entry as Python's docs write it: the id is the full name, the signature shows `prename` first."""
    full = f"{module}.{prename}{name}" if not prename.startswith(module) else f"{prename}{name}"
    return (
        f'<dl class="py method"><dt class="sig sig-object py" id="{full}">'
        f'<span class="sig-prename descclassname"><span class="pre">{prename}</span></span>'
        f'<span class="sig-name descname"><span class="pre">{name}</span></span>'
        f'<span class="sig-paren">(</span><em class="sig-param">pattern</em><span class="sig-paren">)</span></dt>'
        f"<dd><p>{text}</p></dd></dl>"
    )


PAGES = {
    "pathlib.html": sphinx_page(
        "pathlib — Object-oriented filesystem paths",
        "<p>Classes representing filesystem paths.</p><h2>Methods</h2>"
        + entry("pathlib", "Path.", "glob", "Glob the pattern in this directory; ** matches recursively.")
        + entry("pathlib", "Path.", "exists", "Whether the path points to an existing file."),
    ),
    "glob.html": sphinx_page(
        "glob — Unix style pathname pattern expansion",
        "<p>The glob module finds pathnames matching a pattern; glob glob glob. If recursive is true, the "
        "pattern matches any files. See also the pathlib module, whose paths glob too.</p>"
        + entry("glob", "glob.", "glob", "Return a list of path names that match; glob recursive patterns."),
    ),
    "audit.html": sphinx_page(
        "Audit events table",
        "<p>Every audit event raised.</p>"
        + "".join(
            entry(m, f"{m}.", n, f"Event {m}.{n}.") for m, n in [("pathlib.Path", "glob"), ("glob", "glob")]
        ),
    ),
    "json.html": sphinx_page(
        "json — JSON encoder and decoder",
        "<h2>Basic Usage</h2>"
        + entry(
            "json",
            "json.",
            "dumps",
            "Serialize obj to a JSON formatted str; sort_keys sorts the output by key.",
        )
        + "<h2>Command line options</h2><p>The json tool dumps its input again: it can sort keys with "
        "--sort-keys and set the indent with --indent.</p><dl><dt>--sort-keys</dt><dd>Sort the keys of the "
        "output: json sort keys, sort keys and indent.</dd><dt>--indent</dt><dd>The indent of json dumps: "
        "indent, indent and sort keys.</dd></dl>",
    ),
}


@pytest.fixture
def app(tmp_path: Path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, html in PAGES.items():
        (docs / name).write_text(html, encoding="utf-8")
    args = ["serve", "--source", str(docs), "--cache-dir", str(tmp_path / "cache"), "--no-index"]
    return App(parser().parse_args(args), workers=1)


def first(app: App, query: str) -> tuple[str, str]:
    """The first hit's page and section."""
    hit = app.search.search(query, 5)[0]
    return hit.url.rsplit("/", 1)[-1], hit.section_id


CASES = [
    ("pathlib glob recursive", ("pathlib.html", "methods")),
    ("json dumps sort keys and indent", ("json.html", "basic-usage")),
]


@pytest.mark.parametrize(("query", "where"), CASES)
async def test_a_name_spelt_as_words_finds_its_module_page_at_its_definition(app, query, where):
    await app.indexer.run()
    assert first(app, query) == where


@pytest.mark.parametrize(("query", "where"), CASES)
async def test_without_the_mechanism_another_page_or_section_comes_first(app, monkeypatch, query, where):
    await app.indexer.run()
    monkeypatch.setattr(settings, "ABLATED", settings.ABLATED | {"spaced-names"})
    assert first(app, query) != where
