"""The commands a person runs: index (progress + summary), search, measure (table and --json)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import SITE

QUERY = "harmonic constituents fitted by least squares"


def docs_mcp(*args: str, cache) -> subprocess.CompletedProcess:
    env = {**os.environ, "DOCS_MCP_CACHE_DIR": str(cache)}
    return subprocess.run(
        [sys.executable, "-m", "docs_mcp", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_index_prints_progress_and_a_summary(tmp_path):
    run = docs_mcp("index", "--source", str(SITE), "--workers", "1", cache=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "pages (folder)" in run.stderr and "pages/s" in run.stderr and "ETA" in run.stderr
    assert "site: 17 pages via folder" in run.stdout
    assert "17 fetched" in run.stdout and "0 failed" in run.stdout
    assert (tmp_path / "index.sqlite").is_file()  # DOCS_MCP_CACHE_DIR is honoured


def test_search_indexes_first_then_prints_hits(tmp_path):
    run = docs_mcp("search", QUERY, "--source", str(SITE), cache=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "indexing site first" in run.stderr
    first = run.stdout.split("\n\n")[1]
    assert (
        first.startswith("1. API reference") and "big-reference.html#resampling-with-tidal-harmonics" in first
    )


def test_measure_prints_an_aligned_table_with_the_cheapest_path_marked(tmp_path):
    run = docs_mcp("measure", "big-reference.html", "--source", str(SITE), "--query", QUERY, cache=tmp_path)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    header = next(line for line in lines if line.startswith("tool "))
    assert header.split() == ["tool", "arguments", "chars", "~tokens", "calls", "note"]
    rows = [line for line in lines if line.startswith(("get_doc_", "search_"))]
    tools = {line.split()[0] for line in rows}
    assert tools == {"get_doc_toc", "get_doc_section", "search_in_doc", "get_doc_content", "search_docs"}
    # Columns are aligned: every row's chars column ends where the header's does.
    end = header.index("chars") + len("chars")
    assert all(line[end - 1].isdigit() for line in rows)
    cheapest = [line for line in lines if "◀ cheapest" in line]
    assert len(cheapest) == 1 and cheapest[0].lstrip().startswith("search_in_doc")
    assert "calibrated estimate (mean 2.6%" in run.stdout


def test_measure_json_reports_what_the_model_sees(tmp_path):
    run = docs_mcp(
        "measure",
        "seed.html",
        "--source",
        str(SITE),
        "--query",
        "convert between datums",
        "--json",
        cache=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["title"] == "Tidal datums"
    by_tool = {(r["tool"], r["arguments"]): r for r in report["rows"]}
    whole = by_tool[("get_doc_content", "all pages")]
    first = by_tool[("get_doc_content", "first page")]
    assert whole["calls"] == 1 and whole["chars"] == first["chars"]  # a small page fits one response
    assert all(r["tokens"] < r["chars"] for r in report["rows"] if r["chars"])
    assert min(report["paths"], key=lambda p: p["chars"])["path"] == "search_in_doc"


def test_commands_without_a_source_exit_2_with_a_hint(tmp_path):
    run = docs_mcp("measure", "seed.html", cache=tmp_path)
    assert run.returncode == 2
    assert "--source" in run.stderr
