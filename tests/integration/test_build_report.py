"""What a build leaves behind and says: no lock file in the cache folder, discovery files that could not be
read named with their reason (a clean 404 is just absent), and a site's own broken links counted as such,
not as failures of docslice. Each on a scripted origin on 127.0.0.1."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import SITE
from hostile.origin import Server, page, redirect, static

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser
from docs_mcp.cli.report import build_line, start_line, summary, verdict

pytestmark = pytest.mark.anyio

MISSING = tuple(f"missing-{n}.html" for n in range(7))


def docs_routes(*links: str) -> dict:
    """A three-page site under /docs/, its index linking to `links` too."""
    return {
        "/docs/": static(page("Index", links=("page.html", "guide/intro.html", *links))),
        "/docs/page.html": static(page("Tide tables")),
        "/docs/guide/intro.html": static(page("Introduction")),
    }


@pytest.fixture
def origin() -> Iterator[Server]:
    server = Server("127.0.0.1", docs_routes())
    yield server
    server.stop()


def app_for(cache: Path, *sources: str) -> App:
    args = ["serve", "--cache-dir", str(cache), "--no-index", "--timeout", "1", "--deadline", "5"]
    for s in sources:
        args += ["--source", s]
    return App(parser().parse_args(args), workers=1)


async def build(app: App):
    try:
        return await app.indexer.run()
    finally:
        await app.fetcher.aclose()


def hang_up(handler) -> None:
    """Close the connection without an answer."""
    handler.close_connection = True


def too_slow(handler) -> None:
    time.sleep(2)  # past the 1 s read timeout
    handler.send_body(200, b"User-agent: *\nDisallow: /\n", "text/plain")


# --- the cache folder --------------------------------------------------------------------------------
async def test_a_build_leaves_no_lock_file_in_the_cache_folder(origin, tmp_path):
    cache = tmp_path / "cache"
    reports = await build(app_for(cache, origin.url + "docs/", str(SITE)))
    assert [r.pages for r in reports] == [3, 17]
    assert sorted(p.name for p in cache.iterdir() if "lock" in p.name) == []


# --- discovery files that cannot be read ---------------------------------------------------------------
async def test_a_sitemap_failing_with_503_is_named_in_the_summary_and_the_status_line(origin, tmp_path):
    origin.routes["/docs/sitemap.xml"] = static(b"busy", "text/plain", status=503)
    app = app_for(tmp_path, f"tides={origin.url}docs/")
    [report] = await build(app)
    assert report.pages == 3 and report.method == "crawl" and verdict(report) == ""
    assert report.discovery == ["/docs/sitemap.xml (HTTP 503)"]
    assert "\n  ! could not read /docs/sitemap.xml (HTTP 503); pages found via crawl" in summary(report)
    assert build_line(report).endswith(" · could not read /docs/sitemap.xml (HTTP 503)")
    note = "the last build of tides could not read /docs/sitemap.xml (HTTP 503)"
    assert app.search.status_line() == f"index: 3 pages, refreshed just now; {note}"
    # Another process on the same index reads it from the stored outcome.
    again = app_for(tmp_path, f"tides={origin.url}docs/")
    assert again.search.status_line() == f"index: 3 pages, refreshed just now; {note}"
    [state] = again.search.states()
    assert start_line(state, False, 7).endswith("; last build could not read /docs/sitemap.xml (HTTP 503)")


@pytest.mark.parametrize(("behaviour", "why"), [(hang_up, "RemoteProtocolError"), (too_slow, "timed out")])
async def test_a_robots_txt_that_cannot_be_read_is_not_obeyed_and_says_why(origin, tmp_path, behaviour, why):
    origin.routes["/robots.txt"] = behaviour
    [report] = await build(app_for(tmp_path, origin.url + "docs/"))
    assert report.pages == 3 and report.robots_skipped == 0  # never obeyed: its "Disallow: /" is not read
    [problem] = report.discovery
    assert problem.startswith(f"/robots.txt ({why}")
    assert f"could not read /robots.txt ({why}" in summary(report)


async def test_discovery_files_answering_404_are_absent_and_say_nothing(origin, tmp_path):
    app = app_for(tmp_path, origin.url + "docs/")
    [report] = await build(app)
    assert {"/robots.txt", "/docs/sitemap.xml", "/docs/llms.txt"} <= set(origin.requests)
    assert report.discovery == [] and report.pages == 3
    assert "could not read" not in summary(report) + build_line(report) + app.search.status_line()


async def test_an_unreachable_site_names_its_cause_not_every_discovery_file(tmp_path):
    app = app_for(tmp_path, "dead=http://127.0.0.1:9/")
    [report] = await build(app)
    assert not report.reached and report.cause.startswith("connection refused: nothing answers")
    said = summary(report) + app.search.status_line()
    assert "robots.txt" not in said and "sitemap" not in said and "llms.txt" not in said


# --- the site's own broken links ----------------------------------------------------------------------
async def test_links_the_site_does_not_have_are_counted_as_not_found_not_as_failures(tmp_path):
    server = Server("127.0.0.1", docs_routes(*MISSING))
    try:
        [report] = await build(app_for(tmp_path, server.url + "docs/"))
    finally:
        server.stop()
    assert report.pages == 3 and report.failed == 0 and report.reached and verdict(report) == ""
    assert sorted(k.removeprefix(server.url + "docs/") for k in report.not_found) == list(MISSING)
    text = summary(report)
    assert "0 failed" in text and "broken link" not in text
    [line] = [x for x in text.splitlines() if "links not found on the site" in x]
    assert line.startswith("  links not found on the site: 7 (list: missing-")
    assert line.endswith(", … 2 more)") and line.count("missing-") == 5
    assert build_line(report).endswith(" · links not found on the site: 7")


# --- what became of every page ---------------------------------------------------------------------------
async def test_the_summary_says_what_became_of_every_page_and_the_counts_add_up(tmp_path):
    routes = docs_routes("moved.html", "gone.html", "private/notes.html", "menu.js")
    routes["/docs/moved.html"] = redirect("/docs/page.html", 301)  # the same page under another address
    routes["/docs/private/notes.html"] = static(page("Notes"))
    routes["/docs/menu.js"] = static(b'var pages = ["guide/intro.html", "extra.html"];', "text/javascript")
    routes["/docs/extra.html"] = static(page("Extra"))
    routes["/robots.txt"] = static(b"User-agent: *\nDisallow: /docs/private/\n", "text/plain")
    server = Server("127.0.0.1", routes)
    try:
        [report] = await build(app_for(tmp_path, server.url + "docs/"))
    finally:
        server.stop()
    text = summary(report).splitlines()[0]
    head, _, counts = text.partition(" — ")
    assert head.startswith(f"{report.source}: 7 pages via crawl in "), text
    assert counts.startswith(
        "4 fetched, 1 redirected (indexed at their target), 1 not found (404), 1 disallowed by robots.txt, "
        "0 failed"
    ), text
    assert report.scripts == 1 and "script" not in summary(report)  # read for its links, not a page: unsaid
    said = [int(n.replace(",", "")) for n in re.findall(r"(?:^|, )([\d,]+) ", counts.partition(";")[0])]
    assert sum(said) == report.done == report.discovered == 7  # every page gone through is accounted for
