"""The whole scoreboard runs end to end on a question file over the fixture site."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_benchmarks import QUESTIONS  # the two fixture questions the benchmark scripts run on

REPO = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]  # the script runs up to 300 s


def test_the_scoreboard_writes_one_table_per_site_with_both_halves_and_the_search_figures(tmp_path):
    qfile = tmp_path / "fixture.json"
    qfile.write_text(json.dumps(QUESTIONS), encoding="utf-8")
    out = tmp_path / "benchmarks.md"
    run = subprocess.run(
        [sys.executable, "benchmarks/context_to_answer.py", "--sets", str(qfile), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        env={"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"},
    )
    assert run.returncode == 0, run.stderr
    text = out.read_text()
    assert "\n## Scoreboard\n" in text
    assert "### fixture" in text
    for policy in ("in-doc", "pipeline", "agent"):
        assert f"| {policy} " in text
    summary = [line for line in text.splitlines() if line.startswith("| fixture ")]
    assert [line.split("|")[2].strip() for line in summary] == ["tune", "validate"]
    # Both questions are answerable on the fixture pages: in-doc finds each, search ranks each gold page.
    assert all("100% / " in line.split("|")[4] for line in summary), summary
    assert all(line.split("|")[7].strip().startswith("1.000 / ") for line in summary), summary
