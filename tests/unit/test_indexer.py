"""indexer: which crawled pages are navigation (crawled for links, kept out of search)."""

from __future__ import annotations

import pytest

from docs_mcp.convert.parsing import parse_html
from docs_mcp.convert.pipeline import build_document
from docs_mcp.crawl.indexer import digest
from docs_mcp.crawl.link_words import link_words
from docs_mcp.crawl.rows import prepare_page
from docs_mcp.fetch.fetching import RawPage
from docs_mcp.fetch.sources import SourceSet
from docs_mcp.model.progress import Progress
from docs_mcp.store.pagestream import unpack_page

ROOT = "https://docs.example.org/"
PROSE = "Tide gauges record the water level every six minutes and store each reading with its datum. "


def is_navigation(body: str, page: str = "<html><body><main>{}</main></body></html>") -> bool:
    loc = SourceSet.from_specs([ROOT]).resolve(ROOT + "page.html")
    return digest(RawPage(loc, page.format(body), "html"), loc.key)[2]


def test_a_table_of_contents_is_navigation():
    links = "".join(f'<li><a href="ch{n}.html">Chapter {n}: reading gauges</a></li>' for n in range(40))
    assert is_navigation(f"<h1>Contents</h1><ul>{links}</ul>")


DOCBOOK_ENTRIES = "".join(
    f'<dt>gauge datum offset {n}, <a class="indexterm" href="ch{n}.html">Datums</a></dt>' for n in range(40)
)
GENINDEX_ROWS = "".join(
    f'<tr><td><ul><li>datum offset {n} (<a href="a.html#d{n}">module</a>)</li></ul></td></tr>'
    for n in range(5)
)
LETTERS = " | ".join(f'<a href="genindex-{c}.html"><strong>{c}</strong></a>' for c in "ABCDEFGHIJ")


@pytest.mark.parametrize(
    "body",
    [
        # DocBook: half its text is terms, under the link-share threshold.
        f'<div class="index"><div class="indexdiv"><dl>{DOCBOOK_ENTRIES}</dl></div></div>',
        f'<table class="indextable genindextable">{GENINDEX_ROWS}</table>',  # Sphinx genindex
        f'<div class="genindex-jumpbox"><p>Index pages by letter:</p><p>{LETTERS}</p></div>',  # split by letter
    ],
    ids=["docbook-bookindex", "sphinx-genindex", "sphinx-genindex-letters"],
)
def test_a_generated_keyword_index_is_navigation(body):
    assert is_navigation(f"<h1>Index</h1>{body}")


def test_a_reference_page_with_many_cross_links_is_not_navigation():
    items = "".join(
        f'<dt>gauge.read_{n}(datum)</dt><dd><p>{PROSE}See <a href="x.html">Datums</a>.</p></dd>'
        for n in range(40)
    )
    assert not is_navigation(f"<h1>gauge</h1><dl>{items}</dl>")


def test_a_short_reference_page_beside_its_sites_sidebar_is_not_navigation():
    # gi-docgen: no <main>, the method's text in <body> beside a <nav> of every class and method.
    sidebar = "".join(f'<li><a href="method.Gauge.read_{n}.html">Gauge.read_{n}</a></li>' for n in range(60))
    body = (
        "<h1>Gauge.read_datum</h1><p>Reads the datum the gauge records its water level against.</p>"
        "<h2>Returns</h2><p>The datum, in metres above chart datum, or None before the first reading.</p>"
    )
    page = f"<html><body><nav><ul>{sidebar}</ul></nav>{{}}</body></html>"
    assert not is_navigation(body, page)
    assert is_navigation(f"<h1>Contents</h1><ul>{sidebar}</ul>", page)  # a contents page beside it still is
    assert is_navigation("<h1>Contents</h1>", page)  # its contents in the <nav>: nothing but the title left


def test_a_page_that_ends_with_its_index_is_content():
    chapters = "".join(f"<h2>Chapter {n}</h2><p>{PROSE * 6}</p>" for n in range(5))
    entries = "".join(f'<dt>datum {n}, <a href="#c{n}">Chapter {n}</a></dt>' for n in range(40))
    assert not is_navigation(
        f'<h1>Tides</h1>{chapters}<div class="index"><div class="indexdiv"><dl>{entries}</dl></div></div>'
    )


def test_a_build_that_got_only_a_404_still_reached_the_site():
    fresh = Progress("docs", fresh=527)
    fresh.note_error("broken link: …/changelog.html returned HTTP 404", "", "HTTP 404")
    assert fresh.reached  # every page fresh, one broken link: the site answered
    down = Progress("docs", fresh=527)
    down.note_error("could not reach …", "connection refused", "ConnectError: …", unanswered=True)
    assert not down.reached


def test_a_page_that_only_refreshes_to_another_is_crawled_but_not_listed():
    loc = SourceSet.from_specs([ROOT]).resolve(ROOT + "Aliasing.html")
    stub = (
        '<html><head><meta http-equiv="Refresh" content="0; url=Shell-Grammar.html#Aliasing"></head>'
        '<body><p>The node you are looking for is at <a href="Shell-Grammar.html#Aliasing">Aliasing</a>.</p>'
    )
    prepared, links, *_ = digest(RawPage(loc, stub, "html"), loc.key)
    assert not prepared.listed and links == [ROOT + "Shell-Grammar.html#Aliasing"]
    page = f"<html><body><main><h1>Aliasing</h1><p>{PROSE}</p></main></body></html>"
    assert digest(RawPage(loc, page, "html"), loc.key)[0].listed


def test_a_page_digested_with_one_hidden_scan_yields_what_each_step_alone_yields():
    # The indexer scans a page once for what it hides (its links' words and its content both need it).
    body = (
        "<nav><a href='nav.html' style='display:none'>ghost harbour</a><a href='tides.html'>tide tables</a></nav>"
        "<main><h1>Gauges</h1><p>" + PROSE + "<span class='sr-only'>screen reader</span></p>"
        "<div hidden><h2>Secret</h2><p>hidden words <a href='secret.html'>secret datum</a></p></div>"
        "<h2>Datums</h2><p>" + PROSE + "<a href='datum.html'>chart datum</a></p>"
        "<template><a href='t.html'>template words</a></template></main>"
    )
    loc = SourceSet.from_specs([ROOT]).resolve(ROOT + "gauges.html")
    raw = RawPage(loc, f"<html><body>{body}</body></html>", "html")
    page = digest(raw, loc.key, embed=False).page
    alone = prepare_page(loc.key, build_document(raw, loc.key), embed=False)
    # The same texts and document; the links differ (digest hands the page's links to the stream).
    (paths, texts, _, doc), (paths_alone, texts_alone, _, doc_alone) = map(
        unpack_page, (page.stream, alone.stream)
    )
    assert page.sections == alone.sections and (paths, texts, doc) == (paths_alone, texts_alone, doc_alone)
    assert [s[3] for s in page.sections] == ["Gauges", "Datums"]
    assert page.link_words == link_words(parse_html(raw.text), loc, loc.key)
    assert {target.rsplit("/", 1)[1] for target, _ in page.link_words} == {"tides.html", "datum.html"}
