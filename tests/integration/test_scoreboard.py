"""The whole scoreboard runs end to end on a question file over the fixture site."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_benchmarks import QUESTIONS, expected_curve  # the two fixture questions the scripts run on

REPO = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]  # the script runs up to 300 s


def board(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """benchmarks/quality/context_to_answer.py with these arguments, from the checkout's own source."""
    return subprocess.run(
        [sys.executable, "benchmarks/quality/context_to_answer.py", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
        env={"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"},
    )


def test_the_scoreboard_writes_one_table_per_site_with_both_halves_and_the_search_figures(tmp_path):
    qfile = tmp_path / "fixture.json"
    qfile.write_text(json.dumps(QUESTIONS), encoding="utf-8")
    out = tmp_path / "benchmarks.md"
    runs_dir = tmp_path / "json"
    run = board("--sets", str(qfile), "--out", str(out), "--json", str(runs_dir))
    assert run.returncode == 0, run.stderr
    text = out.read_text()
    assert "\n## Scoreboard\n" in text
    assert "### fixture\n" in text and "### fixture, terse queries\n" in text  # both forms by default
    for policy in ("in-doc", "pipeline", "agent"):
        assert f"| {policy} " in text
    blocks = text.split("\n## Scoreboard\n", 1)[1].split("\n\n")
    [figures] = [b for b in blocks if b.startswith("| site ") and "search recall@5" in b.splitlines()[0]]
    summary = [line.split("|") for line in figures.splitlines() if line.startswith("| fixture ")]
    rows = [("full", "tune"), ("full", "validate"), ("terse", "tune"), ("terse", "validate")]
    assert [(c[2].strip(), c[3].strip()) for c in summary] == rows
    # Both questions are answerable on the fixture pages: in-doc finds each, search ranks each gold page.
    assert all("100% / " in cells[5] for cells in summary), summary
    assert all(cells[8].strip().startswith("1.000 / ") for cells in summary[:2]), summary
    # The section leads with the budget curve: per form, half and policy (the peers too), from the
    # per-question chars of each form's JSON.
    first_table = next(block for block in blocks if block.startswith("| "))
    assert first_table.startswith("| site ") and "| within 2,000 |" in first_table.splitlines()[0]
    cells = {
        tuple(c.strip() for c in line.split("|")[2:5]): [c.strip() for c in line.split("|")[6:11]]
        for line in first_table.splitlines()[2:]
    }
    ids = {"tune": {"fx-002"}, "validate": {"fx-001"}}
    policies = ("in-doc", "pipeline", "agent", "whole-page", "paged-5000")
    assert set(cells) == {(f, h, p) for f in ("full", "terse") for h in ids for p in policies}
    for (form, half, policy), shown in cells.items():
        runs = json.loads((runs_dir / f"fixture{'' if form == 'full' else '.terse'}.json").read_text())[
            "runs"
        ]
        assert {r["form"] for r in runs} == {form}
        assert shown == [f"{v:.1f}%" for v in expected_curve(runs, policy, ids[half])], (form, half, policy)
    # Each set's file names where it came from, and the README's curve pools those files with that provenance.
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import readme_figures
        from quality import budget
    finally:
        sys.path.pop(0)
    record = json.loads((runs_dir / "fixture.json").read_text())["run"]
    assert record["command"].startswith("python benchmarks/quality/context_to_answer.py --sets ")
    assert {"commit", "date", "machine", "load"} <= record.keys()
    got = budget.pooled_run(runs_dir)
    assert got["values"]["sets"] == ["fixture"] and got["commit"] == record["commit"]
    block = readme_figures.render_curve(got)
    pipeline_row = next(line for line in block.splitlines() if "`search_docs` → `search_in_doc`" in line)
    tune, validate = (cells[("full", h, "pipeline")] for h in ("tune", "validate"))
    assert pipeline_row.split("|")[2].strip() == f"{float(tune[0][:-1]):.0f} / {float(validate[0][:-1]):.0f}%"
    assert f"`{readme_figures.measuring(record['command'])}` · {record['commit']}" in block
    assert "--json" not in block and "--out" not in block  # what it measured, not where it wrote


def test_the_scoreboard_runs_only_the_policies_asked_for(tmp_path):
    qfile = tmp_path / "fixture.json"
    qfile.write_text(json.dumps(QUESTIONS), encoding="utf-8")
    runs_dir = tmp_path / "json"
    out = tmp_path / "b.md"
    asked = ["--sets", str(qfile), "--form", "full", "--policies", "pipeline,whole-page"]
    run = board(*asked, "--out", str(out), "--json", str(runs_dir))
    assert run.returncode == 0, run.stderr
    [record] = [json.loads(p.read_text()) for p in runs_dir.glob("*.json")]
    assert {r["policy"] for r in record["runs"]} == {"pipeline", "whole-page"}
    summary = [line.split("|") for line in out.read_text().splitlines() if line.startswith("| fixture ")]
    # in-doc and agent did not run: their cells say so; the pipeline solved both questions.
    figures = [c for c in summary if len(c) == 10]
    assert figures and all(c[5].strip() == "—" and c[7].strip() == "—" for c in figures), figures
    assert all(c[6].strip().startswith("100% / ") for c in figures), figures


def test_the_scoreboard_refuses_a_policy_it_does_not_know(tmp_path):
    qfile = tmp_path / "fixture.json"  # a set in the clone: Python's shared set is not beside a fresh clone
    qfile.write_text(json.dumps(QUESTIONS), encoding="utf-8")
    run = board("--sets", str(qfile), "--policies", "pipelin", timeout=60)
    assert run.returncode != 0 and "unknown policies ['pipelin']" in run.stderr
