"""Every start of the server, as a subagent starts it a hundred times a day: a complete, fresh index is used
as it is (no "building" in any answer, no request to the site, a line or two on stderr), and a session closed
while stale pages are being revalidated says so once."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from hostile.origin import Handler, Server, page, static

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.timeout(120)]

PAGES = ("tides.html", "datums.html", "gauges.html", "harmonics.html", "surges.html", "charts.html")


def slowly(body: bytes, seconds: float) -> object:
    """A page that takes `seconds` to answer: a revalidation is still under way when the session closes."""

    def run(h: Handler) -> None:
        time.sleep(seconds)
        h.send_body(200, body)

    return run


def routes(delay: float = 0.0) -> dict:
    pages = {f"/docs/{p}": page(p.removesuffix(".html").title(), f"Tide gauge notes on {p}.") for p in PAGES}
    served = {path: slowly(body, delay) if delay else static(body) for path, body in pages.items()}
    return {"/docs/": static(page("Tide handbook", links=PAGES)), **served}


@pytest.fixture
def origin() -> Iterator[Server]:
    server = Server("127.0.0.1", routes())
    yield server
    server.stop()


async def index_once(cache: Path, url: str) -> None:
    app = App(parser().parse_args(["index", "--source", url, "--cache-dir", str(cache)]), workers=1)
    try:
        [report] = await app.indexer.run()
        assert report.pages == len(PAGES) + 1 and report.complete
    finally:
        await app.fetcher.aclose()


async def session(cache: Path, url: str, errlog: Path, *extra: str, pause: float = 1.5) -> list[str]:
    """One stdio session as Claude Code runs it: two searches, the second after the background work had
    time to start; the answers' texts."""
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "docs_mcp", "--source", url, "--cache-dir", str(cache), *extra],
        env={**os.environ},
    )
    texts = []
    with errlog.open("w") as err:
        async with stdio_client(params, errlog=err) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            for wait in (0.0, pause):
                await anyio.sleep(wait)
                res = await s.call_tool("search_docs", {"query": "tide gauge notes"})
                assert not res.is_error
                texts.append(res.content[0].text)
    return texts


def source_lines(errlog: Path) -> list[str]:
    """What a server said of its sources: its stderr without the process's own start and stop lines."""
    lines = errlog.read_text().splitlines()
    own = [line for line in lines if "started: docslice" in line or "stopping after" in line]
    assert len(own) == 2, lines
    return [line for line in lines if line not in own]


async def test_five_starts_on_a_complete_fresh_index_ask_the_site_nothing_and_say_nothing_of_building(
    origin, tmp_path
):
    await index_once(tmp_path, origin.url + "docs/")
    origin.httpd.recorder.clear()
    for n in range(5):
        errlog = tmp_path / f"stderr-{n}.txt"
        texts = await session(tmp_path, origin.url + "docs/", errlog)
        for text in texts:
            assert "building" not in text and "incomplete" not in text
            assert "index: 7 pages, refreshed " in text
        lines = source_lines(errlog)
        assert len(lines) <= 2, lines
        assert "fresh: used as it is" in lines[0]
    assert origin.requests == []  # not one request to the site in five starts


async def test_a_session_closed_while_stale_pages_are_revalidated_says_so_in_one_line(origin, tmp_path):
    await index_once(tmp_path, origin.url + "docs/")
    # Each page now takes five seconds: the refresh is still under way at the second search, however long the
    # start took on a busy machine (a second each was not enough there); the session's close cuts it short.
    origin.routes.update(routes(delay=5.0))
    errlog = tmp_path / "stderr.txt"
    # A TTL of 0 days: every page is stale at this start.
    texts = await session(tmp_path, origin.url + "docs/", errlog, "--index-ttl-days", "0", pause=2.0)
    for text in texts:
        assert "building" not in text and "incomplete" not in text  # the index is whole all along
    assert "refreshing now" in texts[1]
    lines = source_lines(errlog)
    assert "revalidating its 7 pages older than 0 d in the background" in lines[0]
    stopped = [line for line in lines if "stopped at shutdown" in line]
    assert len(stopped) == 1, lines
    assert "the index keeps all its pages" in stopped[0]
    assert not any("no page indexed" in line for line in lines), lines
    assert len(lines) == 2, lines
