"""A dead source is said once, in its own words, at once: a name that does not resolve, a refused
connection, a 404 at the root; the command line exits 1 when no source answers, and a server keeps serving
the sources that work when a folder is missing."""

from __future__ import annotations

import os
import socket
import sys

import pytest
from conftest import SITE
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parse
from docs_mcp.cli.checks import check_before_work
from docs_mcp.cli.main import main

pytestmark = [pytest.mark.timeout(120), pytest.mark.anyio]
REFUSED = "connection refused: nothing answers at that address (is the docs server running, on that port?)"


def refused_url() -> str:
    """An address nothing listens on: connections are refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/"


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def test_search_on_a_refused_source_exits_1_saying_it_once_in_plain_words(tmp_path, capsys):
    url = refused_url()
    code, out, err = run(["search", "anything", "--source", url, "--cache-dir", str(tmp_path)], capsys)
    assert code == 1 and out == ""
    name = f"localhost-{url.rsplit(':', 1)[1].strip('/')}"
    said = [line for line in err.splitlines() if not line.startswith("indexing ")]
    assert said == [f"docslice: {name}: no page indexed from {url}: {REFUSED}"]
    assert "ConnectError" not in err and "check that the docs site is up" not in err


def test_a_mistyped_host_is_said_as_a_name_that_does_not_resolve(tmp_path, capsys):
    code, out, err = run(["index", "--source", "http://127.0.0.l/", "--cache-dir", str(tmp_path)], capsys)
    assert code == 1 and out == ""
    assert err == (
        "docslice: 127-0-0: no page indexed from http://127.0.0.l/: DNS lookup failed: the host name does not "
        "resolve (check it for a typo)\n"
    )


def test_index_of_a_404_root_is_one_line_in_the_command_lines_words(site, tmp_path, capsys):
    root = site.url + "nothere/"
    code, out, err = run(["index", "--source", root, "--cache-dir", str(tmp_path)], capsys)
    assert code == 1 and out == ""  # stdout does not say it a second way
    assert err == (
        f"docslice: nothere: no page indexed from {root}: 404 at the root: the address answers HTTP 404 "
        "(not found); check it (a docs root ends with /)\n"
    )


async def test_a_host_that_refuses_is_asked_once_not_for_every_discovery_file(tmp_path):
    app = App(parse(["index", "--source", refused_url(), "--cache-dir", str(tmp_path)]), workers=1)
    [report] = await app.indexer.run()
    assert report.discovery == [
        f"/robots.txt ({REFUSED[:100]})"
    ]  # sitemap.xml, llms.txt, the root: not asked
    assert report.failed == 1 and report.done == 1 and not report.reached
    await app.tools.aclose()


async def test_search_docs_over_dead_sources_says_why_without_advising_other_words(tmp_path):
    url = refused_url()
    app = App(
        parse(["serve", "--source", f"dead={url}", "--cache-dir", str(tmp_path), "--no-index"]), workers=1
    )
    await app.indexer.run()
    out = await app.tools.search_docs("anything")
    assert out.startswith(
        f"search_docs 'anything': no match. source dead unreachable: could not reach {url}: "
    )
    assert REFUSED in out and out.count("unreachable") == 1
    assert "Try other words" not in out and "ConnectError" not in out
    await app.tools.aclose()


async def test_a_server_with_a_missing_folder_serves_the_others_and_names_it(tmp_path):
    missing = tmp_path / "docs"
    argv = [
        "serve",
        "--source",
        str(SITE),
        "--source",
        f"notes={missing}",
        "--cache-dir",
        str(tmp_path / "c"),
    ]
    assert check_before_work(parse(argv)) == ""  # not refused at start
    app = App(parse([*argv, "--no-index"]), workers=1)
    assert app.empty_roots() == [str(SITE)]  # nothing to build in a missing folder
    await app.indexer.run(sources=[app.sources.get("site")])
    out = await app.tools.search_docs("tidal datum")
    assert f"source notes: folder {missing} not found; nothing from it is served" in out
    assert "site:seed.html#tidal-datums" in out  # the other source answers
    await app.tools.aclose()


def test_other_commands_still_refuse_a_missing_folder(tmp_path, capsys):
    code, _, err = run(
        ["search", "x", "--source", str(tmp_path / "docs"), "--cache-dir", str(tmp_path)], capsys
    )
    assert code == 2 and "is neither an http(s) URL nor an existing directory" in err


def test_index_of_a_live_and_a_dead_source_says_the_dead_one_once_on_stderr(tmp_path, capsys):
    url = refused_url()
    argv = [
        "index",
        "--source",
        str(SITE),
        "--source",
        f"dead={url}",
        "--workers",
        "1",
        "--cache-dir",
        str(tmp_path),
    ]
    code, out, err = run(argv, capsys)
    assert code == 1
    assert out.startswith("site: 17 pages via folder in ") and "dead" not in out
    assert out.splitlines()[-1].startswith("index: 17 pages of site in ")
    assert [line for line in err.splitlines() if "dead" in line] == [
        f"docslice: dead: no page indexed from {url}: {REFUSED}"
    ]


@pytest.mark.slow
async def test_a_stdio_server_with_a_missing_folder_starts_serves_the_others_and_names_it(tmp_path):
    missing = tmp_path / "docs"
    args = [
        "-m",
        "docs_mcp",
        "--source",
        str(SITE),
        "--source",
        f"notes={missing}",
        "--cache-dir",
        str(tmp_path),
    ]
    params = StdioServerParameters(command=sys.executable, args=args, env={**os.environ})
    with (tmp_path / "stderr.txt").open("w+") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            toc = await session.call_tool("get_doc_toc", {"url": "site:seed.html"})
            found = await session.call_tool("search_docs", {"query": "tidal datum"})
        errlog.seek(0)
        err = errlog.read()
    assert not toc.is_error and "Tidal datums" in toc.content[0].text  # the other source answers
    assert f"source notes: folder {missing} not found; nothing from it is served" in found.content[0].text
    assert f"docslice: notes: folder {missing} not found; serving the other sources" in err
