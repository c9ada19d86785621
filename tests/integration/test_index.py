"""The site index: discovery, persistence, refresh, removal, partial results, CJK, source filtering."""

from __future__ import annotations

import gzip
import sqlite3
from pathlib import Path

import pytest
from conftest import SITE, LocalSite, call, model_view

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser
from docs_mcp.crawl.indexer import Progress
from docs_mcp.errors import IndexDamaged, IndexVersionError
from docs_mcp.search.site import ranker
from docs_mcp.store.interface import Scope
from docs_mcp.store.sqlite.indexfile import open_index
from docs_mcp.store.sqlite.schema import SCHEMA_VERSION
from docs_mcp.store.sqlite.store import SiteIndex
from docs_mcp.transport.server import build_server

pytestmark = pytest.mark.anyio


def app_for(cache: Path, *sources: str, extra: tuple[str, ...] = ()) -> App:
    args = ["serve", "--cache-dir", str(cache), "--no-index", "--timeout", "2", *extra]
    for s in sources:
        args += ["--source", s]
    return App(parser().parse_args(args), workers=1)


async def build(app: App, **kwargs) -> list[Progress]:
    try:
        return await app.indexer.run(**kwargs)
    finally:
        await app.fetcher.aclose()


def keys(app: App) -> set[str]:
    return {p.key for p in app.index.pages(Scope.of(app.sources.sources))}


def rel(app: App, site: LocalSite) -> set[str]:
    return {k.removeprefix(site.url) for k in keys(app)}


# --- discovery ---------------------------------------------------------------------------------
async def test_sitemap_lists_the_pages_and_nothing_off_root(site_copy, tmp_path):
    u = site_copy.url
    (site_copy.directory / "sitemap.xml").write_text(
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{u}sphinx.html</loc></url><url><loc>{u}guide/quickstart.html#x</loc></url>"
        "<url><loc>http://elsewhere.invalid/a.html</loc></url>"
        f"<url><loc>{u}img/logo.png</loc></url></urlset>"
    )
    app = app_for(tmp_path / "c", u)
    [report] = await build(app)
    assert report.method == "sitemap"
    assert rel(app, site_copy) == {"sphinx.html", "guide/quickstart.html"}


async def test_a_page_that_only_refreshes_is_crawled_like_a_redirect_and_read_from_its_target(
    site_copy, tmp_path
):
    u, d = site_copy.url, site_copy.directory
    (d / "Install.html").write_text(
        '<html><head><meta http-equiv="Refresh" content="0; url=guide/quickstart.html#install"></head>'
        '<body><p>The node you are looking for is at <a href="guide/quickstart.html#install">Install</a>.</p>'
    )
    (d / "sitemap.xml").write_text(
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{u}Install.html</loc></url><url><loc>{u}sphinx.html</loc></url></urlset>"
    )
    app = app_for(tmp_path / "c", u)
    [report] = await build(app)
    assert rel(app, site_copy) == {"sphinx.html", "guide/quickstart.html"} and report.redirected == 1
    # With the index in place, the stub's address still reads the page it leads to.
    out = await app.tools.search_in_doc(u + "Install.html", "install")
    assert (
        out.startswith(f"# Quickstart\n{u}guide/quickstart.html#install · ") and "## Install #install" in out
    )


async def test_sitemap_index_named_in_robots_with_gzip(site_copy, tmp_path):
    u, d = site_copy.url, site_copy.directory
    (d / "robots.txt").write_text(f"User-agent: *\nDisallow: /mkdocs.html\nSitemap: {u}maps/index.xml\n")
    (d / "maps").mkdir()
    (d / "maps" / "index.xml").write_text(
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<sitemap><loc>{u}maps/a.xml.gz</loc></sitemap></sitemapindex>"
    )
    pages = "".join(f"<url><loc>{u}{p}</loc></url>" for p in ("seed.html", "mkdocs.html", "docbook.html"))
    (d / "maps" / "a.xml.gz").write_bytes(
        gzip.compress(
            f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{pages}</urlset>'.encode()
        )
    )
    app = app_for(tmp_path / "c", u)
    [report] = await build(app)
    assert rel(app, site_copy) == {"seed.html", "docbook.html"}
    assert report.robots_skipped == 1  # mkdocs.html is disallowed


async def test_llms_txt_links_are_indexed(site_copy, tmp_path):
    (site_copy.directory / "llms.txt").write_text(
        "# Tidepool\n\n- [Datums](seed.html): tidal datums\n- [Stations](docusaurus.html): finding stations\n"
    )
    app = app_for(tmp_path / "c", site_copy.url)
    [report] = await build(app)
    assert report.method == "llms.txt"
    assert rel(app, site_copy) == {"seed.html", "docusaurus.html"}


async def test_crawl_stays_under_the_root(site, tmp_path):
    app = app_for(tmp_path / "c", site.url + "guide/")
    [report] = await build(app)
    assert report.method == "crawl"
    assert {"guide/quickstart.html", "guide/configuration.html"} <= rel(app, site)
    assert all(k.startswith(site.url + "guide/") for k in keys(app))  # index.html and ../ links not followed


async def test_crawl_follows_links_up_to_the_limit(site, tmp_path):
    app = app_for(tmp_path / "all", site.url)
    [full] = await build(app)
    assert full.method == "crawl" and full.fetched >= 10
    assert {"sphinx.html", "guide/quickstart.html", "japanese.html"} <= rel(app, site)
    limited = app_for(tmp_path / "lim", site.url, extra=("--crawl-limit", "3"))
    [report] = await build(limited)
    assert len(keys(limited)) == 3 and report.discovered == 3


@pytest.mark.timeout(180)
async def test_links_past_the_crawl_limit_are_counted_up_to_a_bound_not_kept(tmp_path):
    from docs_mcp.model.progress import LEFT_OUT_COUNTED, cut_note

    docs = tmp_path / "docs"
    docs.mkdir()
    links = "".join(f'<a href="p{i}.html">{i}</a> ' for i in range(LEFT_OUT_COUNTED + 500))
    (docs / "index.html").write_text(f"<html><body><main><h1>Links</h1><p>{links}</p></main></body></html>")
    served = LocalSite(docs)
    try:
        [report] = await build(app_for(tmp_path / "c", served.url, extra=("--crawl-limit", "3")))
    finally:
        served.stop()
    assert report.discovered == 3 and report.left_out == LEFT_OUT_COUNTED
    assert cut_note(report.left_out, report.limit).startswith(
        f"at least {LEFT_OUT_COUNTED:,} discovered pages"
    )


async def test_local_folder_indexes_every_page(tmp_path):
    app = app_for(tmp_path / "c", str(SITE))
    [report] = await build(app)
    assert report.method == "folder"
    names = {Path(k).relative_to(SITE).as_posix() for k in keys(app)}
    assert {"sphinx.html", "notes.md", "guide/configuration.html", "japanese.html"} <= names


async def test_a_redirected_address_is_indexed_at_its_final_address(site_copy, tmp_path):
    u, d = site_copy.url, site_copy.directory
    (d / "guide" / "lang.html").write_text(
        "<html><body><main><h1>Languages</h1><p>English.</p></main></body></html>"
    )
    # `guide` → `guide/` (a static server's directory redirect); `_redirect-in.html` → `sphinx.html`;
    # `guide/lang.html` → `guide/lang.html?lang=en`, the same page.
    (d / "guide" / "index.html").write_text("<html><body><main><h1>Guide home</h1></main></body></html>")
    (d / "sitemap.xml").write_text(
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        + "".join(f"<url><loc>{u}{p}</loc></url>" for p in ("guide", "_redirect-in.html", "guide/lang.html"))
        + "</urlset>"
    )
    app = app_for(tmp_path / "c", u)
    [report] = await build(app)
    assert rel(app, site_copy) == {"guide/", "sphinx.html", "guide/lang.html"}
    assert report.redirected == 2


async def test_a_page_served_at_two_addresses_is_one_search_result_even_after_one_goes(site_copy, tmp_path):
    d = site_copy.directory
    page = (
        "<html><body><main><h1>Gauges</h1><p>The quillwort tables list every gauge.</p></main></body></html>"
    )
    (d / "a.html").write_text(page)
    (d / "b.html").write_text(page)
    (d / "sitemap.xml").write_text(
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{site_copy.url}a.html</loc></url><url><loc>{site_copy.url}b.html</loc></url></urlset>"
    )
    app = app_for(tmp_path / "c", site_copy.url)
    await build(app)
    hits = await app.tools.search_docs("quillwort tables", 10)
    assert "1 result(s)" in hits
    shown, other = ("a.html", "b.html") if "a.html" in hits else ("b.html", "a.html")
    (d / shown).unlink()  # the address search showed goes away: the other one is found now
    again = app_for(tmp_path / "c", site_copy.url)
    await build(again, refresh=True)
    hits = await again.tools.search_docs("quillwort tables", 10)
    assert "1 result(s)" in hits and other in hits


# --- persistence, refresh, removal -------------------------------------------------------------
@pytest.mark.slow
async def test_index_survives_a_restart_without_network(tmp_path):
    site = LocalSite(SITE)
    cache = tmp_path / "c"
    app = app_for(cache, site.url)
    await build(app)
    site.stop()  # from here on nothing can be fetched
    again = app_for(cache, site.url)
    server = build_server(again.tools)
    res = await call(server, "search_docs", query="harmonic constituents least squares")
    out = model_view(res)
    assert not res.is_error and "big-reference.html#resampling-with-tidal-harmonics" in out
    toc = model_view(await call(server, "get_doc_toc", url=site.url + "sphinx.html"))
    assert "#loading-data" in toc  # read from the stored document, not refetched


@pytest.mark.slow
async def test_refresh_revalidates_with_304_and_drops_removed_pages(site_copy, tmp_path):
    cache = tmp_path / "c"
    app = app_for(cache, site_copy.url)
    [first] = await build(app)
    (site_copy.directory / "docbook.html").unlink()
    again = app_for(cache, site_copy.url)
    [second] = await build(again, refresh=True)
    assert second.fetched == 0
    assert second.not_modified == first.fetched - 1
    assert second.removed == 1
    assert site_copy.url + "docbook.html" not in keys(again)
    hits = again.search.search("TIDE-SETUP catalogs docbook", 10)
    assert all("docbook.html" not in h.url for h in hits)


async def test_fresh_pages_are_not_refetched(site, tmp_path):
    cache = tmp_path / "c"
    await build(app_for(cache, site.url))
    again = app_for(cache, site.url)
    [report] = await build(again)  # no --refresh: everything is younger than the TTL
    assert report.fetched == 0 and report.not_modified == 0 and report.fresh >= 10


# --- search_docs over the index ----------------------------------------------------------------
@pytest.mark.slow
async def test_search_reports_a_build_in_progress_with_progress_notifications(site, tmp_path):
    app = app_for(tmp_path / "c", site.url)
    await build(app, sources=None)
    app.builds.begin(Progress("docs", site.url, done=3, discovered=12))  # a build under way
    notes = []

    async def on_progress(progress, total, message):
        notes.append((progress, total, message))

    from mcp import Client

    async with Client(build_server(app.tools), mode="legacy") as client:
        res = await client.call_tool("search_docs", {"query": "tidal datum"}, progress_callback=on_progress)
    out = model_view(res)
    assert "building: 3 of ~12 pages indexed so far" in out
    assert notes and notes[0][:2] == (3.0, 12.0)


async def test_search_finds_japanese_pages_with_japanese_queries(site, tmp_path):
    app = app_for(tmp_path / "c", site.url)
    await build(app)
    [hit, *_] = app.search.search("潮位データ 読み込み", 5)
    assert hit.url.endswith("japanese.html") and "潮位データ" in hit.snippet


async def test_search_hits_carry_section_path_snippet_and_fetch_time(site, tmp_path):
    app = app_for(tmp_path / "c", site.url)
    await build(app)
    out = await app.tools.search_docs("Rayleigh criterion constituent", 3)
    first = out.split("\n\n")[1]
    assert "big-reference.html#resampling-with-tidal-harmonics" in first
    assert "Resampling with tidal harmonics" in first and "fetched 20" in first
    assert "Rayleigh criterion" in first


async def test_source_filter_and_source_labels(site, tmp_path):
    app = app_for(tmp_path / "c", "web=" + site.url, f"guide={SITE / 'guide'}")
    await build(app)
    both = await app.tools.search_docs("configuration file", 10)
    assert "source web" in both and "source guide" in both
    only = await app.tools.search_docs("configuration file", 10, source="guide")
    assert "source web" not in only and "configuration.html" in only
    with pytest.raises(Exception, match="unknown source 'nope'"):
        await app.tools.search_docs("x", source="nope")


async def test_query_matching_nothing_says_so(site, tmp_path):
    app = app_for(tmp_path / "c", site.url)
    await build(app)
    out = await app.tools.search_docs("zyzzyva quokka")
    assert "no match. index: " in out


@pytest.mark.slow
async def test_rate_limited_page_is_retried_after_429(site_copy, tmp_path):
    u = site_copy.url
    (site_copy.directory / "sitemap.xml").write_text(
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{u}_429.html</loc></url>'
        f"<url><loc>{u}seed.html</loc></url></urlset>"
    )
    app = app_for(tmp_path / "c", u)
    [report] = await build(app)
    assert report.failed == 0 and report.fetched == 2  # the 429 (Retry-After: 0) was waited out, not dropped
    assert u + "_429.html" in keys(app)


async def test_page_whose_words_are_on_most_pages_still_ranks_by_its_sections(tmp_path):
    # "version", "url" and "path" are on 5 of 8 pages, so page-level BM25 gives them no weight at all and
    # only history.md scores there (for "choose"); schemes.md's sections are still the best match.
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "schemes.md").write_text(
        "# Schemes\n\n## URL path scheme\n\nThe version sits in the URL path, such as /v1/items: the router "
        "reads the version from the URL path.\n\n## Accept header scheme\n\nThe version sits in the Accept "
        "header, not in the URL path.\n\n## Host name scheme\n\nThe version sits in the host name; the URL "
        "path stays as it is.\n"
    )
    (docs / "history.md").write_text(
        "# History\n\n## Spring\n\nUsers choose a version each spring.\n\n## Autumn\n\nUsers choose again "
        "in autumn, from the url of the release.\n\n## Winter\n\nNobody has to choose in winter.\n"
    )
    for name in ("routing", "views", "clients"):
        (docs / f"{name}.md").write_text(
            f"# {name}\n\n## Overview\n\nEvery {name} page names the version it applies to and the url of its "
            "source path.\n"
        )
    for name in ("tides", "gauges", "datums"):
        topics = "".join(
            f"\n## {name} topic {i}\n\nThe {name} table number {i} lists heights and stations.\n"
            for i in range(10)
        )
        (docs / f"{name}.md").write_text(f"# {name}\n{topics}")
    app = app_for(tmp_path / "c", str(docs))
    await build(app)
    [hit, *_] = app.search.search("choose the version in the url path", 3)
    assert hit.url.endswith("schemes.md") and hit.section_id == "url-path-scheme"


async def test_an_all_in_one_page_does_not_take_the_result_of_the_page_it_copies(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    tides = "# Tides\n\n## Quillwort gauges\n\nEach quillwort gauge logs the tide every six minutes.\n"
    winds = "# Winds\n\n## Anemometers\n\nEach anemometer logs the wind every minute.\n"
    (docs / "tides.md").write_text(tides)
    (docs / "winds.md").write_text(winds)
    (docs / "all.md").write_text(tides + "\n" + winds)  # Node's all.html, mdBook's print.html
    app = app_for(tmp_path / "c", str(docs))
    await build(app)
    hits = [h.url.rsplit("/", 1)[-1] for h in app.search.search("quillwort gauge tide", 3)]
    assert hits[0] == "tides.md" and "all.md" not in hits


async def test_many_copies_of_one_page_still_leave_room_for_other_results(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(7):  # `--scale` indexes, mirrors: one page at seven addresses
        (docs / f"copy{i}.md").write_text("# Gauges\n\n## Quillwort gauges\n\nQuillwort gauges log tides.\n")
    (docs / "other.md").write_text("# Other\n\n## Tides\n\nTides are logged by quillwort stations.\n")
    app = app_for(tmp_path / "c", str(docs))
    await build(app)
    hits = [h.url.rsplit("/", 1)[-1] for h in app.search.search("quillwort gauges", 2)]
    assert len(hits) == 2 and hits[1] == "other.md"


def release_site(tmp_path, title: str) -> Path:
    """A reference page, a page titled `title` that says the same in fewer words, and an unrelated page."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "gauges.md").write_text(
        "# Instruments\n\n## Quillwort gauges\n\nRecorders of many kinds log water levels at each station."
        " The quillwort gauge logs the tide.\n"
    )
    (docs / "notes.md").write_text(f"# {title}\n\n## Quillwort gauge\n\nThe quillwort gauge logs the tide.\n")
    (docs / "other.md").write_text("# Winds\n\n## Anemometers\n\nEach anemometer logs the wind.\n")
    return docs


@pytest.mark.parametrize(
    "title", ["Changes", "3.0 Announcement", "What's New in Tidepool 2.0", "Release notes", "Version history"]
)
async def test_release_notes_rank_below_the_page_they_mention(tmp_path, title):
    app = app_for(tmp_path / "c", str(release_site(tmp_path, title)))
    await build(app)
    ranked = [h.url.rsplit("/", 1)[-1] for h in app.search.search("quillwort gauge tide", 2)]
    assert ranked == ["gauges.md", "notes.md"], ranked
    # A word like "version" in a how-to is not a question about releases...
    assert app.search.search("quillwort gauge tide for this version", 1)[0].url.endswith("gauges.md")
    # ...but asking what changed is what release notes answer.
    assert app.search.search("what changed in quillwort gauge tide", 1)[0].url.endswith("notes.md")


@pytest.mark.parametrize("title", ["Announcement channels", "History", "Changes to the API"])
async def test_pages_only_named_like_release_notes_are_not_demoted(tmp_path, title):
    app = app_for(tmp_path / "c", str(release_site(tmp_path, title)))
    await build(app)
    assert app.search.search("quillwort gauge tide", 1)[0].url.endswith("notes.md")


# --- API names ---------------------------------------------------------------------------------
async def test_query_naming_an_api_ranks_the_page_that_defines_it(tmp_path):
    # big-reference.html mentions load and time zones more often; sphinx.html has the <dt> for tidepool.load.
    app = app_for(tmp_path / "c", str(SITE))
    await build(app)
    [hit, *_] = app.search.search("how does tidepool.load handle time zones", 3)
    assert hit.url.endswith("sphinx.html") and hit.section_id == "loading-data"


def fillers(docs: Path, n: int = 60) -> None:
    """Unrelated pages, so the words of a test are rare in the index as on a real site."""
    for i in range(n):
        (docs / f"filler{i}.md").write_text(f"# Filler {i}\n\n## Part {i}\n\nSalt marsh notes, number {i}.\n")


async def test_a_question_spelling_out_a_run_together_name_ranks_the_page_named_so(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    fillers(docs)
    (docs / "TideGauge.md").write_text(
        "# TideGauge\n\n## Overview\n\nOne instance may be shared by several readers.\n"
    )
    for name in ("levels", "stations", "sensors", "archive"):  # more of the question's words, apart
        (docs / f"{name}.md").write_text(
            f"# {name.title()}\n\n## {name.title()} and tides\n\nEvery tide {name} page: the tide and the "
            f"gauge, each gauge of each tide station, shared by several {name} readers, one by one.\n"
        )
    app = app_for(tmp_path / "c", str(docs))
    await build(app)
    [hit, *_] = app.search.search("can several readers share one tide gauge", 3)
    assert hit.url.endswith("TideGauge.md")


async def test_a_chapter_holding_the_questions_words_outranks_small_pages_sharing_one_rare_word(
    tmp_path, monkeypatch
):
    # Coverage counts beside the semantic extra's cosine: its model active, its blend weighed at nothing.
    monkeypatch.setattr(ranker, "active_model", lambda: "wordllama")
    monkeypatch.setattr(ranker, "SEMANTIC_WEIGHT", 0.0)
    docs = tmp_path / "docs"
    docs.mkdir()
    fillers(docs)
    pad = "Controllers handle what arrives and pass on the rest to their parents in turn."
    pairs = ["key and capture", "phase and focused", "widget and shortcut", "whole and window"]
    (docs / "handling.md").write_text(  # the answer, its words spread over its sections
        "# Handling input\n\n"
        + "".join(f"## Part {i}\n\n{pad} The {w} matter here. {pad}\n\n" for i, w in enumerate(pairs))
    )
    for i in range(8):  # one small page per member, each titled with one rare word of the question
        (docs / f"member{i}.md").write_text(f"# Controller.capture_{i}\n\nThe capture of controller {i}.\n")
    app = app_for(tmp_path / "c", str(docs))
    await build(app)
    query = "key capture phase before the focused widget shortcut of the whole window"
    [hit, *_] = app.search.search(query, 3)
    assert hit.url.endswith("handling.md")


async def test_defining_page_respects_the_source_filter_and_links_to_the_definition(tmp_path):
    app = app_for(tmp_path / "c", f"site={SITE}", f"guide={SITE / 'guide'}")
    await build(app)
    [hit, *_] = app.search.search("GaugeReader.validate_records() encoding", 3)
    assert hit.url.endswith("big-reference.html") and hit.section_id == "rendering"  # where it is defined
    assert not [h for h in app.search.search("validate_records()", 5, source="guide") if h.source != "guide"]


async def test_failed_removal_rolls_back_and_leaves_the_index_writable(tmp_path):
    app = app_for(tmp_path / "c", str(SITE))
    await build(app)
    before = app.index.page_count()
    (key,) = app.index.db.execute("SELECT key FROM pages ORDER BY key LIMIT 1").fetchone()
    app.index.db.execute(
        "CREATE TEMP TRIGGER refuse BEFORE DELETE ON pages BEGIN SELECT RAISE(ABORT, 'disk'); END"
    )
    with pytest.raises(sqlite3.IntegrityError):
        app.index.remove(key)
    assert app.index.page_count() == before  # nothing half-deleted
    app.index.db.execute("DROP TRIGGER refuse")
    app.index.remove(key)  # no transaction left open by the failure
    assert app.index.page_count() == before - 1


#: The layout docs-mcp 0.1.0 wrote (schema 1): no `names` columns.
V1_LAYOUT = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE pages(id INTEGER PRIMARY KEY, source TEXT NOT NULL, key TEXT NOT NULL UNIQUE, url TEXT NOT NULL,
    title TEXT NOT NULL, fetched_at REAL NOT NULL, etag TEXT, last_modified TEXT, hash TEXT,
    listed INTEGER NOT NULL DEFAULT 1, links TEXT, doc BLOB);
CREATE TABLE sections(id INTEGER PRIMARY KEY, page_id INTEGER NOT NULL, ord INTEGER NOT NULL,
    anchor TEXT NOT NULL, level INTEGER NOT NULL, title TEXT NOT NULL, path TEXT NOT NULL, text TEXT NOT NULL);
CREATE VIRTUAL TABLE sections_fts USING fts5(title, path, body, tokenize='unicode61');
CREATE VIRTUAL TABLE pages_fts USING fts5(title, headings, body, tokenize='unicode61');
INSERT INTO meta VALUES ('schema', '1');
INSERT INTO pages(source, key, url, title, fetched_at) VALUES ('site', 'k', 'u', 'Old page', 0);
"""


async def test_index_written_by_an_older_schema_is_dropped_and_rebuilt(tmp_path):
    cache = tmp_path / "c"
    cache.mkdir()
    with sqlite3.connect(cache / "index.sqlite") as db:
        db.executescript(V1_LAYOUT)
    app = app_for(cache, str(SITE))
    assert app.index.page_count() == 0  # a stale cache, not an error
    await build(app)
    assert app.index.page_count() > 0 and app.search.search("tidepool.load", 1)


def ranked(app: App) -> list[tuple[str, str, str]]:
    """A search's hits and their snippets (not their scores: vectors converted from float16 move them by ~1e-3)."""
    return [(h.url, h.section_id, h.snippet) for h in app.search.search("tidepool.load", 3)]


async def built(tmp_path) -> tuple:
    """The fixture site indexed anew: its cache folder, the app, and its page count and ranking (`ranked`)."""
    cache = tmp_path / "c"
    app = app_for(cache, str(SITE))
    await build(app)
    return cache, app, (app.index.page_count(), ranked(app))


def reopened(cache, back, noted: tuple) -> tuple:
    """The closed index taken back to an older schema by `back(db)`, opened again (converted in place): the app,
    with the same pages and ranking as `noted`, and what `back` returned."""
    with sqlite3.connect(cache / "index.sqlite") as db:
        result = back(db)
    again = app_for(cache, str(SITE))
    assert (again.index.page_count(), ranked(again)) == noted
    return again, result


#: The schema a converted file reaches.
CURRENT = str(SCHEMA_VERSION)


def back_to_15(db: sqlite3.Connection) -> None:
    """A file made as schema 15 wrote it: each page's paths and texts one JSON array at its stream's start."""
    import json
    import zlib

    from docs_mcp.store.pagestream import ZLIB_LEVEL, unpack_page

    for page_id, stream in db.execute("SELECT id, doc FROM page_data WHERE doc IS NOT NULL").fetchall():
        paths, texts, links, doc = unpack_page(stream)
        head = json.dumps([paths, texts], ensure_ascii=False).encode("utf-8")
        out = "\n".join(links).encode("utf-8")
        old = (
            len(head).to_bytes(4, "big")
            + len(out).to_bytes(4, "big")
            + zlib.compress(head + out + doc, ZLIB_LEVEL)
        )
        db.execute("UPDATE page_data SET doc=? WHERE id=?", (old, page_id))
    db.execute("UPDATE meta SET value='15' WHERE key='schema'")


async def test_an_index_of_schema_15_keeps_its_pages_and_reads_a_section_without_the_sections_after_it(
    tmp_path,
):
    cache, app, noted = await built(tmp_path)
    documents = {key: app.index.load_document(key).markdown() for key in keys(app)}
    with app.index.reading() as r:
        outgoing = {key: r.links(key) for key in keys(app)}
        stored = dict(r.db.execute("SELECT id, doc FROM page_data WHERE doc IS NOT NULL").fetchall())
    app.index.close()
    again, _ = reopened(cache, back_to_15, noted)
    assert {key: again.index.load_document(key).markdown() for key in keys(again)} == documents
    with again.index.reading() as r:
        assert r.meta("schema") == CURRENT and {key: r.links(key) for key in keys(again)} == outgoing
        # The same streams as a fresh build's, so a section is read from them as far as it lies.
        assert dict(r.db.execute("SELECT id, doc FROM page_data WHERE doc IS NOT NULL").fetchall()) == stored
    again.index.close()


def cut_streams(db: sqlite3.Connection) -> None:
    """Every page's stream cut short on disk: its places' table lost."""
    db.execute("UPDATE page_data SET doc=substr(doc, 1, 12) WHERE doc IS NOT NULL")


async def test_an_index_of_schema_15_with_a_damaged_page_stream_is_moved_aside_not_a_crash_on_open(tmp_path):
    cache, app, _ = await built(tmp_path)
    app.index.close()
    with sqlite3.connect(cache / "index.sqlite") as db:
        back_to_15(db)
        cut_streams(db)
    opened = open_index(cache / "index.sqlite")
    assert opened.damaged and opened.index is not None and opened.index.page_count() == 0
    assert "page_data" not in opened.notice and "stored stream (schema 15) is damaged" in opened.notice
    assert "moved aside to index.sqlite.damaged-" in opened.notice
    opened.index.close()


def lose_streams(db: sqlite3.Connection) -> None:
    """Every page's stream gone (NULL), its section rows still naming their places in it."""
    db.execute("UPDATE page_data SET doc=NULL")


@pytest.mark.parametrize(
    ("use", "damage"), [("search", cut_streams), ("rewrite", cut_streams), ("search", lose_streams)]
)
async def test_a_page_stream_damaged_while_in_use_is_said_and_the_file_moved_aside(tmp_path, use, damage):
    from docs_mcp.crawl.rows import prepare_page

    cache, app, _ = await built(tmp_path)
    key = next(k for k in keys(app) if k.endswith("sphinx.html"))
    page = prepare_page(key, app.index.load_document(key))
    app.index.close()
    with sqlite3.connect(cache / "index.sqlite") as db:
        damage(db)
    again = app_for(cache, str(SITE))
    with pytest.raises(IndexDamaged, match=r"damaged while in use \(a page's stored stream is damaged \("):
        # A rewrite reads the page's old texts first, to take them out of the full-text index.
        again.search.search("tidepool.load", 3) if use == "search" else again.index.write(page)
    assert list(cache.glob("index.sqlite.damaged-*")) and again.index.page_count() == 0
    again.index.close()


def back_to_14(db: sqlite3.Connection) -> None:
    """A schema 15 file made as schema 14 wrote it: a page's paths and texts zlib'd in `page_data.texts`, its
    links and its document each zlib'd alone, its link words in the `link_words` table by page key."""
    import json
    import zlib

    from docs_mcp.store.pagestream import ZLIB_LEVEL, unpack_page

    db.execute("ALTER TABLE page_data ADD COLUMN links BLOB")
    db.execute("ALTER TABLE page_data ADD COLUMN texts BLOB")
    for page_id, stream in db.execute("SELECT id, doc FROM page_data").fetchall():
        paths, texts, links, doc = unpack_page(stream)
        packed = zlib.compress(json.dumps([paths, texts], ensure_ascii=False).encode("utf-8"), ZLIB_LEVEL)
        db.execute(
            "UPDATE page_data SET doc=?, texts=?, links=? WHERE id=?",
            (
                zlib.compress(doc, ZLIB_LEVEL),
                packed,
                zlib.compress("\n".join(links).encode("utf-8")),
                page_id,
            ),
        )
    db.execute("CREATE TABLE link_words(source TEXT PRIMARY KEY, pairs BLOB NOT NULL) WITHOUT ROWID")
    db.execute(
        "INSERT INTO link_words SELECT p.key, d.words FROM pages p JOIN page_data d ON d.id=p.id "
        "WHERE d.words IS NOT NULL"
    )
    db.execute("ALTER TABLE page_data DROP COLUMN words")
    db.execute("UPDATE meta SET value='14' WHERE key='schema'")


def back_to_13(db: sqlite3.Connection) -> None:
    """A schema 15 file made as schema 13 wrote it: each section's text in its row (zlib'd when longer), its
    vectors float16, inbound words by target key (counted again from the link words)."""
    import json
    import zlib
    from collections import Counter

    import numpy as np

    from docs_mcp.store.pagerows import pack_text, unpack_link_words
    from docs_mcp.store.vectors import FLOAT16_DIMS, unpack_vectors

    back_to_14(db)

    for page_id, model, blob in db.execute("SELECT id, model, vecs FROM page_vectors").fetchall():
        old = unpack_vectors(blob, FLOAT16_DIMS[model]).astype(np.float16).tobytes()
        db.execute("UPDATE page_vectors SET vecs=? WHERE id=?", (old, page_id))

    db.execute("ALTER TABLE sections ADD COLUMN path TEXT NOT NULL DEFAULT ''")
    db.execute("ALTER TABLE sections ADD COLUMN text TEXT NOT NULL DEFAULT ''")
    for page_id, blob in db.execute("SELECT id, texts FROM page_data").fetchall():
        for ord_, (path, text) in enumerate(zip(*json.loads(zlib.decompress(blob)), strict=True)):
            db.execute(
                "UPDATE sections SET path=?, text=? WHERE page_id=? AND ord=?",
                (path, pack_text(text), page_id, ord_),
            )
    db.execute("ALTER TABLE page_data DROP COLUMN texts")
    pairs = Counter(
        p for (blob,) in db.execute("SELECT pairs FROM link_words") for p in unpack_link_words(blob)
    )
    db.execute("DROP TABLE inbound_words")
    db.execute(
        "CREATE TABLE inbound_words(target TEXT NOT NULL, term TEXT NOT NULL, sources INTEGER NOT NULL, "
        "PRIMARY KEY (target, term)) WITHOUT ROWID"
    )
    db.executemany("INSERT INTO inbound_words VALUES (?,?,?)", [(t, w, n) for (t, w), n in pairs.items()])
    digests = db.execute("SELECT id, page_id, digest, trimmed FROM section_digests").fetchall()
    db.executescript(
        "DROP TABLE section_digests; CREATE TABLE section_digests(id INTEGER NOT NULL, page_id INTEGER NOT NULL, "
        "digest TEXT NOT NULL, trimmed INTEGER NOT NULL DEFAULT 0); "
        "CREATE INDEX section_digests_digest ON section_digests(digest, page_id); "
        "CREATE INDEX section_digests_page ON section_digests(page_id); "
        "CREATE INDEX section_digests_id ON section_digests(id);"
    )
    db.executemany(
        "INSERT INTO section_digests VALUES (?,?,?,?)",
        [(i, p, format(d + (1 << 63), "016x"), t) for i, p, d, t in digests],
    )
    db.execute("UPDATE meta SET value='13' WHERE key='schema'")


async def test_an_index_of_schema_13_keeps_its_pages_with_each_page_s_texts_in_one_stream_and_int8_vectors(
    tmp_path,
):
    cache, app, noted = await built(tmp_path)
    target = next(k for k in keys(app) if k.endswith("sphinx.html"))
    texts = [s.text for s in app.index.load_document(target).sections]
    rows = app.search.search("tidepool.load", 3)  # with their headings above them
    with app.index.reading() as r:
        linked = {key: r.inbound_words(key, 50) for key in keys(app)}
    assert sum(map(len, linked.values())) > 10
    app.index.close()

    def back(db: sqlite3.Connection) -> tuple:
        back_to_13(db)
        assert db.execute("SELECT count(*) FROM sections WHERE typeof(text)='blob'").fetchone()[0] > 0
        return db.execute("SELECT count(*), sum(length(vecs)) FROM page_vectors").fetchone()

    again, vectors = reopened(cache, back, noted)
    assert [s.text for s in again.index.load_document(target).sections] == texts
    assert [h.section_path for h in again.search.search("tidepool.load", 3)] == [h.section_path for h in rows]
    with again.index.reading() as r:
        assert {key: r.inbound_words(key, 50) for key in keys(again)} == linked
    with again.index.reading() as r:
        columns = {row[1] for row in r.db.execute("PRAGMA table_info(sections)")}
        assert r.meta("schema") == CURRENT and not {"text", "path"} & columns
        count, size = r.db.execute("SELECT count(*), sum(length(vecs)) FROM page_vectors").fetchone()
        rows = vectors[1] // (2 * 128)  # float16 rows of the default model, wordllama-128
        assert count == vectors[0] > 0 and size == rows * (128 + 4)
    again.index.close()


async def test_an_index_of_schema_14_keeps_its_pages_documents_and_link_words_in_one_row_a_page(tmp_path):
    from docs_mcp.crawl.rows import prepare_page

    cache, app, noted = await built(tmp_path)
    page = next(
        k for k in keys(app) if k.endswith("sphinx.html")
    )  # a folder's pages keep no links: given some
    app.index.write(
        prepare_page(page, app.index.load_document(page), links=[f"{page}#a", "https://x.invalid/"])
    )
    documents = {key: app.index.load_document(key).markdown() for key in keys(app)}
    with app.index.reading() as r:
        linked = {key: r.inbound_words(key, 50) for key in keys(app)}
        ids = {row.key: row.id for row in r.page_rows(range(1, 10_000))}
        links = r.links_from(list(ids.values()))
        outgoing = {key: r.links(key) for key in keys(app)}
    assert sum(map(len, linked.values())) > 10 and sum(map(len, links.values())) > 10
    assert outgoing[page] == [f"{page}#a", "https://x.invalid/"]
    app.index.close()
    again, _ = reopened(cache, back_to_14, noted)
    assert {key: again.index.load_document(key).markdown() for key in keys(again)} == documents
    total = "SELECT sum(sources) FROM inbound_words"
    with again.index.reading() as r:
        assert r.meta("schema") == CURRENT and r.links_from(list(ids.values())) == links
        assert {key: r.inbound_words(key, 50) for key in keys(again)} == linked
        assert not r.db.execute("SELECT 1 FROM sqlite_master WHERE name='link_words'").fetchone()
        assert {row[1] for row in r.db.execute("PRAGMA table_info(page_data)")} == {"id", "words", "doc"}
        assert {key: r.links(key) for key in keys(again)} == outgoing
        before = r.db.execute(total).fetchone()[0]
    # A converted page rewritten without its links takes back the words it gave the pages it linked to.
    source = max(ids, key=lambda key: sum(map(len, links.get(ids[key], {}).values())))
    again.index.write(prepare_page(source, again.index.load_document(source)))
    with again.index.reading() as r:
        given = sum(map(len, links[ids[source]].values()))
        assert given > 0 and r.db.execute(total).fetchone()[0] == before - given
    again.index.close()


async def test_an_index_of_schema_11_keeps_its_pages_and_gets_link_words_as_its_pages_are_written_again(
    tmp_path,
):
    from docs_mcp.crawl.rows import prepare_page

    cache, app, noted = await built(tmp_path)
    with app.index.reading() as r:
        assert r.db.execute("SELECT count(*) FROM inbound_words").fetchone()[0] > 0  # the site's own links
    app.index.close()

    def back(db: sqlite3.Connection) -> None:  # back to schema 11: no link words
        back_to_13(db)
        db.executescript(
            "DROP TABLE inbound_words; DROP TABLE link_words; UPDATE meta SET value='11' WHERE key='schema';"
        )

    again, _ = reopened(cache, back, noted)
    target = next(k for k in keys(again) if k.endswith("sphinx.html"))
    with again.index.reading() as r:
        assert r.meta("schema") == CURRENT and r.db.execute(
            "SELECT count(*) FROM inbound_words"
        ).fetchone() == (0,)
    source = target.rsplit("/", 1)[0] + "/linking.html"
    again.index.write(
        prepare_page(source, again.index.load_document(target), link_words=((target, "sextant"),))
    )
    with again.index.reading() as r:
        tid = next(row.id for row in r.page_rows(range(1, 10_000)) if row.key == target)
        assert r.inbound_terms([tid], ["sextant"]) == [(tid, "sextant")]
    again.index.close()


async def test_an_index_of_schema_12_keeps_its_digests_and_gets_trimmed_ones_as_its_pages_are_written_again(
    tmp_path,
):
    from docs_mcp.crawl.rows import prepare_page

    cache, app, noted = await built(tmp_path)
    app.index.close()

    def back(db: sqlite3.Connection) -> int:  # back to schema 12: one digest a section, its id the key
        back_to_13(db)
        db.executescript(
            "CREATE TABLE d12(id INTEGER PRIMARY KEY, page_id INTEGER NOT NULL, digest TEXT NOT NULL);"
            "INSERT INTO d12 SELECT id, page_id, digest FROM section_digests WHERE trimmed=0;"
            "DROP TABLE section_digests; ALTER TABLE d12 RENAME TO section_digests;"
            "CREATE INDEX section_digests_digest ON section_digests(digest, page_id);"
            "CREATE INDEX section_digests_page ON section_digests(page_id);"
            "UPDATE meta SET value='12' WHERE key='schema';"
        )
        return db.execute("SELECT count(*) FROM section_digests").fetchone()[0]

    again, whole = reopened(cache, back, noted)
    target = next(k for k in keys(again) if k.endswith("sphinx.html"))
    sql = "SELECT trimmed, count(*) FROM section_digests GROUP BY trimmed"
    with again.index.reading() as r:
        assert r.meta("schema") == CURRENT and r.db.execute(sql).fetchall() == [(0, whole)]
    again.index.write(prepare_page(target, again.index.load_document(target)))
    with again.index.reading() as r:
        assert dict(r.db.execute(sql).fetchall())[1] > 0
    again.index.close()


def test_index_written_by_a_newer_version_is_refused_with_advice(tmp_path):
    cache = tmp_path / "c"
    cache.mkdir()
    with sqlite3.connect(cache / "index.sqlite") as db:
        db.executescript(
            "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('schema', '99');"
        )
    with pytest.raises(IndexVersionError, match=r"newer docslice.*--cache-dir"):
        SiteIndex(cache / "index.sqlite")
    with sqlite3.connect(cache / "index.sqlite") as db:  # left as it was
        assert db.execute("SELECT value FROM meta").fetchone() == ("99",)
