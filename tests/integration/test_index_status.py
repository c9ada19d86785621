"""Honest status: `index` fails when a source yields no page, naming why; the server says what each source has;
search_docs tells a build under way, an unreachable source and a query that matches nothing apart."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from conftest import SITE, LocalSite
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser
from docs_mcp.cli.report import verdict
from docs_mcp.fetch.fetching import Fetcher
from docs_mcp.model.progress import Progress

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(180)]  # subprocesses waited on for up to 120 s


def index_cli(source: str, cache: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "docs_mcp",
            "index",
            "--source",
            source,
            "--cache-dir",
            str(cache),
            "--workers",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


def app_for(cache: Path, *sources: str) -> App:
    args = ["serve", "--cache-dir", str(cache), "--no-index", "--timeout", "2"]
    for s in sources:
        args += ["--source", s]
    return App(parser().parse_args(args), workers=1)


# --- `index` exits 1 when a source yields no page, and says why ---------------------------
def test_index_of_a_site_refusing_connections_exits_1_naming_the_cause(tmp_path):
    run = index_cli("http://127.0.0.1:9/", tmp_path)  # nothing listens on the discard port
    assert run.returncode == 1
    assert "docslice: localhost-9: no page indexed from http://127.0.0.1:9/: connection refused" in run.stderr
    assert "Traceback" not in run.stderr


def test_index_of_a_root_that_is_404_exits_1_naming_the_cause(site, tmp_path):
    run = index_cli(site.url + "no-such-dir/", tmp_path)
    assert run.returncode == 1
    assert "no page indexed" in run.stderr and "404 at the root" in run.stderr


@pytest.mark.slow
def test_index_of_a_site_whose_robots_txt_disallows_everything_exits_1(site_copy, tmp_path):
    (site_copy.directory / "robots.txt").write_text("User-agent: *\nDisallow: /\n")
    run = index_cli(site_copy.url, tmp_path)
    assert run.returncode == 1
    assert "robots.txt disallows its pages" in run.stderr


@pytest.mark.slow
def test_index_with_a_broken_link_but_pages_indexed_exits_0(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.html").write_text(
        '<html><body><main><h1>Home</h1><p>See <a href="gone.html">this</a>.</p></main></body></html>'
    )
    site = LocalSite(docs)
    try:
        run = index_cli(site.url, tmp_path / "c")
    finally:
        site.stop()
    assert run.returncode == 0, run.stderr
    # The site's own broken link is named as such, not counted as a failure of the build.
    assert "0 failed" in run.stdout and "index: 1 page of" in run.stdout
    assert "links not found on the site: 1 (list: gone.html)" in run.stdout


async def test_a_dns_failure_is_named_as_such(tmp_path):
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[Errno -2] Name or service not known", request=request)

    app = app_for(tmp_path, "docs=https://docs.example.invalid/")
    app.fetcher = Fetcher(app.sources, app.settings, transport=httpx.MockTransport(refuse))
    app.indexer.fetcher = app.fetcher
    [report] = await app.indexer.run()
    assert report.cause == "DNS lookup failed: the host name does not resolve (check it for a typo)"
    assert verdict(report).startswith(
        "docs: no page indexed from https://docs.example.invalid/: DNS lookup failed"
    )


# --- search_docs's status line --------------------------------------------------------------------
async def test_status_says_building_from_the_first_second_of_a_background_build(tmp_path):
    app = app_for(tmp_path, str(SITE))
    app.builds.announce([s.root for s in app.sources.sources])  # what `serve` does before its delayed start
    out = await app.tools.search_docs("tidal datum")
    assert "building: finding the pages of site" in out and "index is empty" not in out
    app.builds.begin(Progress("site", app.sources.sources[0].root, done=3, discovered=12))
    out = await app.tools.search_docs("tidal datum")
    assert "building: 3 of ~12 pages indexed so far" in out


async def test_status_says_which_source_is_unreachable_and_what_is_still_served(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.html").write_text(
        "<html><body><main><h1>Gauges</h1><p>The quillwort gauge logs the tide.</p></main></body></html>"
    )
    site = LocalSite(docs)
    app = app_for(tmp_path / "c", f"docs={site.url}")
    await app.indexer.run()
    site.stop()  # the site goes down; a refresh finds nothing
    [report] = await app.indexer.run(refresh=True)
    assert not report.reached and report.cause.startswith(
        "connection refused: nothing answers at that address"
    )
    out = await app.tools.search_docs("quillwort gauge")
    assert "1 result(s)" in out and "The quillwort gauge" in out  # what was indexed is still served
    status = re.search(r"source docs unreachable: (.*)", out).group(1)
    assert re.match(
        rf"could not reach {re.escape(site.url)}: connection refused: nothing answers at that address \(is the "
        r"docs server running, on that port\?\) at \d\d:\d\d UTC; serving the 1 page indexed on 20\d\d-\d\d-\d\d",
        status,
    ), status
    # Another process reading the same index (a server started with --no-index) says the same.
    again = app_for(tmp_path / "c", f"docs={site.url}")
    assert "source docs unreachable" in again.search.status_line()
    await app.fetcher.aclose()


async def test_status_tells_no_match_from_an_empty_index(tmp_path):
    app = app_for(tmp_path, str(SITE))
    assert "the index is empty (run `docslice index" in await app.tools.search_docs("tidal datum")
    await app.indexer.run()
    out = await app.tools.search_docs("zyzzyva quokka")
    assert out.startswith("search_docs 'zyzzyva quokka': no match. index: 17 pages, refreshed just now.")


# --- the server's stderr: one line per source at start and after each build ----------------------------
async def serve(cache: Path, errlog, *sources: str, wait_for: str, seconds: float = 60) -> str:
    args = ["-m", "docs_mcp", "--cache-dir", str(cache)]
    for s in sources:
        args += ["--source", s]
    params = StdioServerParameters(command=sys.executable, args=args, env={**os.environ})
    async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            errlog.seek(0)
            if wait_for in errlog.read():
                break
            await asyncio.sleep(0.2)
        result = await session.call_tool("search_docs", {"query": "tidal datum"})
    return result.content[0].text


@pytest.mark.slow
async def test_serve_logs_each_source_at_start_and_after_its_build(tmp_path):
    with (tmp_path / "stderr.txt").open("w+") as errlog:
        out = await serve(
            tmp_path / "c", errlog, str(SITE), "dead=http://127.0.0.1:9/", wait_for="dead: 0 pages"
        )
        errlog.seek(0)
        lines = [x for x in errlog.read().splitlines() if x.startswith("docslice: ")]
    assert f"docslice: site ({SITE}): no page indexed yet; building in the background" in lines
    assert "docslice: dead (http://127.0.0.1:9/): no page indexed yet; building in the background" in lines
    [site_done] = [x for x in lines if x.startswith("docslice: site: ")]
    assert site_done.startswith("docslice: site: 17 pages indexed · 17 fetched, 0 unchanged, 0 failed in ")
    [dead_done] = [x for x in lines if x.startswith("docslice: dead: ")]
    assert "0 pages indexed" in dead_done and "connection refused" in dead_done
    assert "source dead unreachable: could not reach http://127.0.0.1:9/: connection refused" in out
    assert "nothing from it is indexed" in out and "ConnectError" not in out and "Try other words" not in out
