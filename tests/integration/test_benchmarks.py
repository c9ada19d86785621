"""The benchmark scripts run end to end on the fixture site, so `docs/benchmarks.md` stays one command away."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SITE

from docs_mcp.cli.main import main

REPO = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]  # each script runs up to 300 s

# Written for this test from the fixture pages; the benchmark sets themselves live in benchmarks/questions/.
QUESTIONS = {
    "about": "Two questions over fixtures/site, to run the benchmark scripts in CI.",
    "docs": str(SITE),
    "questions": [
        {
            "id": "fx-001",
            "query": "which time zone applies to naive timestamps when loading a series",
            "page": "sphinx.html",
            "section": "Loading data",
            "needles": ["naive timestamps are interpreted as UTC"],
            "code": False,
            "kind": "sentence",
        },
        {
            "id": "fx-002",
            "query": "environment variable naming the configuration file",
            "page": "docbook.html",
            "section": "1.2.1. The Configuration File",
            "needles": ["from the file named by the environment variable TIDEPOOL_CONFIG"],
            "code": False,
            "kind": "sentence",
        },
    ],
}


@pytest.fixture
def questions(tmp_path: Path) -> Path:
    path = tmp_path / "fixture-questions.json"
    path.write_text(json.dumps(QUESTIONS), encoding="utf-8")
    return path


def run(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )


def test_context_to_answer_prints_the_policy_table_and_writes_its_section(questions, tmp_path):
    out = tmp_path / "benchmarks.md"
    out.write_text("# Benchmarks\n\n## Other\n\nkept\n", encoding="utf-8")
    res = run(
        "context_to_answer.py", "--questions", str(questions), "--index", "--verbose", "--out", str(out)
    )
    assert res.returncode == 0, res.stderr
    rows = {
        tuple(cell.strip() for cell in line.split("|")[1:3]): line
        for line in res.stdout.splitlines()
        if line.startswith("| ")
    }
    assert "100% (2/2)" in rows[("in-doc", "all")] and "100% (2/2)" in rows[("whole-page", "all")]
    # Each half of the set (even ids tune, odd ids validate) has its own row.
    assert "100% (1/1)" in rows[("in-doc", "tune")] and "100% (1/1)" in rows[("in-doc", "validate")]
    assert {"pipeline", "section", "paged-5000"} <= {policy for policy, _ in rows}
    md = out.read_text(encoding="utf-8")
    assert "## Other\n\nkept" in md  # other sections survive
    assert "## Context to answer" in md and "benchmarks/context_to_answer.py --questions" in md
    assert "| in-doc     | all      | 100% (2/2)" in md


def test_context_to_answer_runs_one_half_alone(questions):
    res = run(
        "context_to_answer.py", "--questions", str(questions), "--policies", "in-doc", "--half", "validate"
    )
    assert res.returncode == 0, res.stderr
    rows = [line for line in res.stdout.splitlines() if line.startswith("| in-doc")]
    assert any("| validate" in r and "100% (1/1)" in r for r in rows), rows
    assert not any("| tune" in r and "(1/1)" in r for r in rows), rows  # fx-002, the tuning question, not run


def test_search_quality_reports_recall_and_latency_in_the_sites_own_section(questions, tmp_path):
    out = tmp_path / "benchmarks.md"
    out.write_text("# Benchmarks\n\n## Site search\n\nthe Python docs' figures\n", encoding="utf-8")
    res = run("search_quality.py", "--questions", str(questions), "--out", str(out))
    assert res.returncode == 0, res.stderr
    assert "| recall@5 | 1.000 |" in res.stdout
    assert "| recall@5 / MRR@10, tune half (1) | 1.000 / " in res.stdout
    assert "search_docs p50, default 5 results (MCP client)" in res.stdout
    md = out.read_text(encoding="utf-8")
    assert "## Site search\n\nthe Python docs' figures" in md  # another site does not overwrite Python's
    assert f"## Site search: {SITE.name}" in md and f"`{SITE}` served by" in md
    assert "| peak RSS, index loaded + 4 searches |" in md


def test_semantic_grid_prints_each_blend_per_half(questions):
    proc = run("semantic_grid.py", "--questions", str(questions), "--weights", "0,0.5")
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if line.startswith(("0.00 20 |", "0.50 20 |"))]
    assert len(rows) == 2, proc.stdout
    # fx-002 is the tuning half, fx-001 the validation half: each found in the top 5 either way.
    for row in rows:
        tune, validate = (cell.split(" / ") for cell in row.split(" | ")[1:])
        assert tune[0] == validate[0] == "1.000", proc.stdout
    assert "section vectors" in proc.stdout


def test_search_latency_times_each_configuration_and_its_ratio(tmp_path):
    cache = tmp_path / "cache"
    with pytest.raises(SystemExit) as built:
        main(["index", "--source", str(SITE), "--cache-dir", str(cache), "--workers", "1"])
    assert built.value.code == 0
    src = str(REPO / "src")
    proc = run(
        "search_latency.py", "--cache-dir", str(cache), "--root", str(SITE), "--rounds", "2", "--passes", "1",
        "--queries", "5", "--config", f"lexical:{src}:off", "--config", f"semantic:{src}:auto",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rounds = [line for line in proc.stdout.splitlines() if line.startswith("round ")]
    assert [line.split()[:3] for line in rounds] == [
        ["round", "1", "lexical"], ["round", "1", "semantic"], ["round", "2", "lexical"], ["round", "2", "semantic"]
    ]  # fmt: skip
    summary = proc.stdout.split("median of 2 rounds")[1]
    assert "lexical      p50" in summary and "(1.00x)" in summary and "semantic     p50" in summary
