"""Site search sees only this server's sources, names them as configured now, and skips generated pages."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import LocalSite

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser

pytestmark = pytest.mark.anyio


def app_for(cache: Path, *sources: str) -> App:
    args = ["serve", "--cache-dir", str(cache), "--no-index"]
    for s in sources:
        args += ["--source", s]
    return App(parser().parse_args(args), workers=1)


def page(title: str, text: str, links: str = "") -> str:
    return (
        f"<html><body><main><h1>{title}</h1><h2>{title} details</h2><p>{text}</p>{links}</main></body></html>"
    )


def folder(root: Path, pages: dict[str, str]) -> Path:
    for name, html in pages.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(html)
    return root


async def indexed(app: App) -> App:
    try:
        await app.indexer.run()
    finally:
        await app.fetcher.aclose()
    return app


async def test_two_servers_sharing_a_cache_folder_never_see_each_others_pages(tmp_path):
    tides = folder(
        tmp_path / "tides",
        {f"t{n}.html": page(f"Tides {n}", "Quillwort gauges log the tide.") for n in range(3)},
    )
    winds = folder(
        tmp_path / "winds",
        {f"w{n}.html": page(f"Winds {n}", "Quillwort masts log the wind.") for n in range(4)},
    )
    cache = tmp_path / "shared-cache"
    a = await indexed(app_for(cache, str(tides)))
    b = await indexed(app_for(cache, str(winds)))
    assert a.index.path == b.index.path and a.index.page_count() == 7  # one file, both sites in it
    hits_a = a.search.search("quillwort log", 20)
    hits_b = b.search.search("quillwort log", 20)
    assert sorted(h.url for h in hits_a) == ["t0.html", "t1.html", "t2.html"]
    assert sorted(h.url for h in hits_b) == ["w0.html", "w1.html", "w2.html", "w3.html"]
    out = await a.tools.search_docs("quillwort masts wind", 20)
    assert "w0.html" not in out and "index: 3 pages" in out
    # Every hit opens with this server's own tools.
    for h in hits_a:
        assert "Tides" in await a.tools.get_doc_toc(h.url)


LINKED = (
    "genindex.html",
    "py-modindex.html",
    "search.html",
    "_modules/gauge.html",
    "guide/search.html",
    "qgauge-members.html",
    "files/",
)


async def test_generated_pages_are_crawled_for_links_but_never_returned(tmp_path):
    html = tmp_path / "html"
    folder(
        html,
        {
            "index.html": page(
                "Home", "Start here.", "".join(f'<a href="{u}">link {k}</a>' for k, u in enumerate(LINKED))
            ),
            "genindex.html": page("Index", "quillwort gauge entries", '<a href="gauges.html">gauges</a>'),
            "py-modindex.html": page("Module index", "quillwort gauge module"),
            "search.html": page("Search", "quillwort gauge search page"),
            "_modules/gauge.html": page("Source code for gauge", "def quillwort_gauge(): quillwort gauge"),
            "guide/search.html": page("Searching gauges", "How to search quillwort gauge records."),
            # qdoc's and Doxygen's "list of all members" of a class: every member's name and a link.
            "qgauge-members.html": page("List of All Members for QGauge", "quillwort gauge members"),
            # A web server's listing of a folder (Python's http.server names it so).
            "files/index.html": page("Directory listing for /files/", "quillwort-gauge.csv quillwort gauge"),
            "gauges.html": page("Gauges", "The quillwort gauge logs the tide."),
        },
    )
    site = LocalSite(html)
    try:
        app = await indexed(app_for(tmp_path / "c", site.url))
    finally:
        site.stop()
    stored = {p.key.removeprefix(site.url) for p in app.index.pages(app.search.scope())}
    # All crawled and stored (gauges.html is linked from genindex.html only), generated listings included...
    assert {
        "genindex.html",
        "py-modindex.html",
        "search.html",
        "_modules/gauge.html",
        "qgauge-members.html",
        "files/",
        "gauges.html",
    } <= stored
    urls = {h.url.removeprefix(site.url) for h in app.search.search("quillwort gauge", 20)}
    # ...but only content is a hit, a page about searching included.
    assert urls == {"gauges.html", "guide/search.html"}


async def test_a_renamed_source_labels_and_opens_its_hits_with_the_new_name(tmp_path):
    tides = folder(tmp_path / "tides", {"gauges.html": page("Gauges", "The quillwort gauge logs the tide.")})
    winds = folder(tmp_path / "winds", {"masts.html": page("Masts", "The anemometer logs the wind.")})
    cache = tmp_path / "c"
    await indexed(app_for(cache, f"old={tides}", f"air={winds}"))
    renamed = app_for(cache, f"new={tides}", f"air={winds}")  # same roots, pages still fresh: no rebuild
    [hit] = renamed.search.search("quillwort gauge", 5)
    assert (hit.url, hit.source) == ("new:gauges.html", "new")
    out = await renamed.tools.search_docs("quillwort gauge", 5)
    assert "source new" in out and "old" not in out
    toc = await renamed.tools.get_doc_toc(hit.url)  # the tools open what search shows
    assert toc.startswith("# Gauges\nnew:gauges.html")
    only = await renamed.tools.search_docs("quillwort gauge", 5, source="new")
    assert "new:gauges.html" in only


async def test_a_renamed_url_source_is_labelled_with_its_new_name(site, tmp_path):
    cache = tmp_path / "c"
    await indexed(app_for(cache, f"old={site.url}guide/", f"local={tmp_path}"))
    renamed = app_for(cache, f"docs={site.url}guide/", f"local={tmp_path}")
    hits = renamed.search.search("configuration file", 5)
    assert hits and {h.source for h in hits} == {"docs"}


async def test_source_listings_and_an_item_re_exported_under_two_paths_are_never_extra_hits(tmp_path):
    sources = {  # one source view per generator (Doxygen, rustdoc, Javadoc, Sphinx, Haddock), Javadoc's index by letter
        "gauge_8c_source.html": page("gauge.c Source File", "int quillwort_gauge(void) quillwort gauge"),
        "src/Data.Gauge.Quillwort.html": page("", "quillwortGauge :: Tide -> Gauge -- quillwort gauge"),
        "src/gauge/lib.rs.html": page("lib.rs - source", "pub fn quillwort_gauge() quillwort gauge"),
        "src-html/org/gauge/Gauge.html": page("Source code", "class Gauge quillwort gauge"),
        "index-files/index-17.html": page(
            "Q-Index", "quillwortGauge() - Method in class Gauge quillwort gauge"
        ),
        "_modules/gauge.html": page("Source code for gauge", "def quillwort_gauge(): quillwort gauge"),
    }
    item = "Struct gauge::Gauge", "A quillwort gauge records the tide."
    copies = ["gauge/struct.Gauge.html", "gauge/prelude/struct.Gauge.html"]
    links = "".join(f'<a href="{u}">s</a>' for u in [*sources, *copies, "gauges.html"])
    html = folder(
        tmp_path / "html",
        {
            "index.html": page("Home", "Start.", links),
            **sources,
            # rustdoc's re-export: the same item's page at a second path; only its relative links differ.
            "gauge/struct.Gauge.html": page(*item, '<a href="../index.html">up</a>'),
            "gauge/prelude/struct.Gauge.html": page(*item, '<a href="../../index.html">up</a>'),
            "gauges.html": page(
                "Gauges", "How a quillwort gauge is read.", '<a href="gauge/prelude/x">p</a>'
            ),
        },
    )
    site = LocalSite(html)
    try:
        app = await indexed(app_for(tmp_path / "c", site.url))
    finally:
        site.stop()
    stored = {p.key.removeprefix(site.url) for p in app.index.pages(app.search.scope())}
    assert {*sources, *copies} <= stored
    urls = [h.url.removeprefix(site.url) for h in app.search.search("quillwort gauge", 20)]
    assert len(urls) == 2 and "gauges.html" in urls and len(set(urls) & set(copies)) == 1
    out = await app.tools.search_docs("quillwort gauge", 20)
    assert "2 result(s)" in out and not any(s in out for s in sources)
