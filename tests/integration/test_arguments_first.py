"""Arguments are checked before any work (no crawl, no server stack loaded), and the command line explains
itself: a misspelt option named with the right one, the remembered sources in --help, a stdio server started
in a terminal says what it waits for."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time

import pytest
from conftest import SITE

from docs_mcp.cli.main import main

pytestmark = pytest.mark.timeout(120)


def run(*args: str, cache, importtime: bool = False) -> subprocess.CompletedProcess:
    env = {**os.environ, "DOCS_MCP_CACHE_DIR": str(cache)}
    flags = ["-X", "importtime"] if importtime else []
    return subprocess.run(
        [sys.executable, *flags, "-m", "docs_mcp", *args], capture_output=True, text=True, env=env, timeout=60
    )


def imported(stderr: str) -> set[str]:
    """The modules `-X importtime` saw imported."""
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines() if line.startswith("import time:")}


def test_search_refuses_an_option_out_of_range_before_indexing_the_source(site, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["search", "x", "--max-results", "0", "--source", site.url, "--cache-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert exc.value.code == 1
    assert err == "docslice: --max-results must be an integer from 1 to 20, got 0\n"
    assert not (tmp_path / "index.sqlite").exists()  # no index opened, no page crawled


def test_bad_arguments_are_refused_before_the_crawl_or_server_stack_is_imported(site, tmp_path):
    served = run("--source", site.url, "--http", "nonsense", cache=tmp_path, importtime=True)
    assert served.returncode == 2
    assert "docslice: --http 'nonsense': the port must be a number from 0 to 65535" in served.stderr
    assert not {"mcp", "docs_mcp.transport.server", "uvicorn", "docs_mcp.tools.docs"} & imported(
        served.stderr
    )
    stdio = run("--source", site.url, "--token", "x" * 40, cache=tmp_path, importtime=True)
    assert stdio.returncode == 2 and "apply to --http only" in stdio.stderr
    assert "mcp" not in imported(stdio.stderr)
    search = run("search", "x", "--max-results", "0", "--source", site.url, cache=tmp_path, importtime=True)
    assert search.returncode == 1 and "--max-results must be an integer from 1 to 20, got 0" in search.stderr
    assert not {
        "docs_mcp.crawl.indexer",
        "docs_mcp.store.opening",
        "docs_mcp.convert.html_markdown",
    } & imported(search.stderr)


def test_a_misspelt_option_is_named_with_the_one_meant_and_the_query_is_not_blamed(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["search", "--sources", "http://127.0.0.1:9/", "dataclass"])
    err = capsys.readouterr().err
    assert exc.value.code == 2
    last = err.strip().splitlines()[-1]
    assert last == "docslice: error: unknown option --sources (did you mean --source?)"


def test_help_describes_the_remembered_sources_its_source_line_points_to(capsys):
    for argv in (["--help"], ["search", "--help"]):
        with pytest.raises(SystemExit):
            main(argv)
        text = " ".join(capsys.readouterr().out.split())
        assert "(see below)" in text
        assert "Sources remembered: without --source, every command reads $DOCSLICE_SOURCE" in text
        assert 'source = ["pg=https://www.postgresql.org/docs/15/", "./docs"]' in text


def test_a_stdio_server_started_in_a_terminal_says_it_waits_for_a_client(tmp_path):
    leader, follower = pty.openpty()
    env = {**os.environ, "DOCS_MCP_CACHE_DIR": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "docs_mcp", "--source", str(SITE), "--no-index"],
        stdin=follower,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    os.close(follower)
    try:
        said, end = b"", time.monotonic() + 30
        while b"\n" not in said and time.monotonic() < end:
            if select.select([proc.stderr], [], [], 0.5)[0]:
                said += os.read(proc.stderr.fileno(), 4096)
        first = said.decode().splitlines()[0]
        assert first.startswith("docslice: serving MCP on stdin/stdout: waiting for an MCP client")
        assert "Ctrl-C to stop" in first
    finally:
        proc.kill()
        proc.wait(timeout=10)
        os.close(leader)
