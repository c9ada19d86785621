"""examples/python-client/: the stdio and HTTP client scripts run as a user runs them, against the fixture site
served on 127.0.0.1 and a real docslice server (a child of the stdio script; a `serve --http` process)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES
from test_http import Served

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]
EXAMPLES = FIXTURES.parent / "examples" / "python-client"
QUESTION = "resampling interval"


def run_example(script: str, *args: str, cache: Path) -> subprocess.CompletedProcess:
    """The example as a user runs it: this environment's python and its `docslice` first on PATH."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("DOCS_MCP_")},
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "DOCS_MCP_CACHE_DIR": str(cache),
    }
    return subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args], capture_output=True, text=True, env=env, timeout=150
    )


def test_the_stdio_example_searches_then_reads_the_best_pages_passages(site, site_index_cache):
    run = run_example("stdio_client.py", site.url, QUESTION, cache=site_index_cache)
    assert run.returncode == 0, run.stderr
    search, _, passages = run.stdout.partition("\n# ")
    assert search.startswith(f"search_docs '{QUESTION}': 3 result(s). index: ")
    assert f"{site.url}sphinx.html#fixed-intervals · fetched" in search
    assert passages.startswith("Working with tide series\n") and "best section(s)" in passages
    assert "Fixed intervals divide the record into equal bins anchored at midnight UTC" in passages


def test_the_http_example_lists_the_tools_searches_and_reads_the_best_section(site, site_index_cache):
    served = Served(
        "--http", "127.0.0.1:0", "--source", site.url, "--cache-dir", str(site_index_cache), "--no-index"
    )
    try:
        run = run_example("http_client.py", served.url, QUESTION, cache=site_index_cache)
    finally:
        served.stop()
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "tools: search_docs, search_in_doc, get_doc_toc, get_doc_section, get_doc_content"
    assert lines[1].startswith(f"search_docs '{QUESTION}': 3 result(s).")
    section = run.stdout.split("\n\n# ", 1)[1]
    assert section.startswith("Working with tide series\n")
    assert f"{site.url}sphinx.html#fixed-intervals (" in section
    assert "Fixed intervals divide the record into equal bins anchored at midnight UTC" in section
