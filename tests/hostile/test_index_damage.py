"""Hostile: a damaged or unwritable index never stops serving (issue 13, item 9).

A half-truncated `index.sqlite`, a garbage header, a directory in its place, an unwritable cache dir: the
server still answers the MCP handshake and every page tool, says what happened in one line on stderr, and
moves a damaged file aside to rebuild it; `docs-mcp index` exits non-zero with that line.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

SITE = Path(__file__).resolve().parents[2] / "fixtures" / "site"
pytestmark = pytest.mark.timeout(240)  # subprocesses waited on for up to 180 s
QUERY = "harmonic constituents fitted by least squares"


def docs_mcp(*args: str, cache: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "docs_mcp", *args, "--source", str(SITE), "--cache-dir", str(cache)],
        capture_output=True,
        text=True,
        timeout=180,
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> bytes:
    """The bytes of an intact index of the fixture site (built once, copied into each test's cache)."""
    cache = tmp_path_factory.mktemp("intact")
    run = docs_mcp("index", "--workers", "1", cache=cache)
    assert run.returncode == 0, run.stderr
    return (cache / "index.sqlite").read_bytes()


def truncated(path: Path, intact: bytes) -> None:
    path.write_bytes(intact[: len(intact) // 2])


def garbage_header(path: Path, intact: bytes) -> None:
    path.write_bytes(b"this is not a database!!" * 4 + intact[96:])


def directory(path: Path, intact: bytes) -> None:
    path.mkdir()
    (path / "something").write_text("a directory where the index file should be")


DAMAGE = [truncated, garbage_header, directory]


def damaged_cache(tmp_path: Path, intact: bytes, damage) -> Path:
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)  # as docslice creates it (a shared one would add a warning line)
    damage(cache / "index.sqlite", intact)
    return cache


def notice_lines(stderr: str) -> list[str]:
    # "is damaged", not "damaged": pytest names the folder after the test, and lines that name the index's
    # path (`indexing … first, into …/test_…_damaged_…/index.sqlite`) would count.
    return [line for line in stderr.splitlines() if " is damaged" in line]


@pytest.mark.parametrize("damage", DAMAGE, ids=lambda d: d.__name__)
def test_search_moves_a_damaged_index_aside_rebuilds_and_answers(tmp_path, built, damage):
    cache = damaged_cache(tmp_path, built, damage)
    run = docs_mcp("search", QUERY, cache=cache)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    [line] = notice_lines(run.stderr)
    assert line.startswith("docslice: the site index") and "moved aside to index.sqlite.damaged-" in line
    assert "big-reference.html#resampling-with-tidal-harmonics" in run.stdout
    assert len(list(cache.glob("index.sqlite.damaged-*"))) == 1


@pytest.mark.parametrize("damage", DAMAGE, ids=lambda d: d.__name__)
def test_index_command_exits_non_zero_saying_the_index_was_damaged(tmp_path, built, damage):
    cache = damaged_cache(tmp_path, built, damage)
    run = docs_mcp("index", "--workers", "1", cache=cache)
    assert run.returncode == 1
    assert "Traceback" not in run.stderr
    assert notice_lines(run.stderr) and all("moved aside" in line for line in notice_lines(run.stderr))
    assert "index: 17 pages" in run.stdout  # and it was rebuilt
    again = docs_mcp("index", "--workers", "1", cache=cache)
    assert again.returncode == 0 and not notice_lines(again.stderr)


async def serve_and_call(cache: Path, errlog, *calls: tuple[str, dict]) -> list[str]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "docs_mcp", "--source", str(SITE), "--cache-dir", str(cache), "--no-index"],
        env={**os.environ},
    )
    out = []
    async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
        await asyncio.wait_for(session.initialize(), 30)
        tools = await session.list_tools()
        assert len(tools.tools) == 5
        for name, args in calls:
            result = await session.call_tool(name, args)
            out.append(result.content[0].text)
    return out


@pytest.mark.parametrize("damage", DAMAGE, ids=lambda d: d.__name__)
def test_serve_answers_the_handshake_and_the_tools_over_a_damaged_index(tmp_path, built, damage):
    cache = damaged_cache(tmp_path, built, damage)
    with (tmp_path / "stderr.txt").open("w+") as errlog:
        toc, search = asyncio.run(
            serve_and_call(
                cache, errlog, ("get_doc_toc", {"url": "sphinx.html"}), ("search_docs", {"query": QUERY})
            )
        )
        errlog.seek(0)
        stderr = errlog.read()
    assert "Traceback" not in stderr
    assert len(notice_lines(stderr)) == 1
    assert "#loading-data" in toc
    # The damaged index went aside and this server was started with --no-index: search says so, honestly.
    assert "the index is empty" in search


def unwritable_cache(tmp_path: Path) -> Path:
    """A cache dir that cannot be created, even by root: its parent is a regular file."""
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache dir's parent should be")
    return blocker / "cache"


def test_serve_without_a_writable_cache_dir_serves_pages_without_site_search(tmp_path):
    with (tmp_path / "stderr.txt").open("w+") as errlog:
        toc, search = asyncio.run(
            serve_and_call(
                unwritable_cache(tmp_path),
                errlog,
                ("get_doc_toc", {"url": "sphinx.html"}),
                ("search_docs", {"query": "loading data"}),
            )
        )
        errlog.seek(0)
        stderr = errlog.read()
    assert "Traceback" not in stderr
    [line] = [x for x in stderr.splitlines() if "cache dir" in x]
    assert "cannot create the cache dir" in line and "serving pages without site search" in line
    assert "#loading-data" in toc
    assert "site search is off: cannot create the cache dir" in search
    assert "sphinx.html" in search  # the page read so far is still searched


def test_index_without_a_writable_cache_dir_exits_1_with_one_line(tmp_path):
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "docs_mcp",
            "index",
            "--source",
            str(SITE),
            "--cache-dir",
            str(unwritable_cache(tmp_path)),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 1
    assert run.stderr.strip().startswith("docslice: cannot create the cache dir")
    assert len(run.stderr.strip().splitlines()) == 1


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes anywhere")
def test_a_read_only_cache_dir_is_reported_not_crashed_on(tmp_path, built):
    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o500)
    try:
        run = docs_mcp("index", "--workers", "1", cache=cache)
    finally:
        cache.chmod(0o700)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "not writable" in run.stderr
