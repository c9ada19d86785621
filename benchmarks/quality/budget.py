"""The budget curve, the headline figure: the share of ALL questions answered within B characters of context.

A question counts within B when a policy solved it and the characters the model saw up to and including the
response holding a needle are at most B; unsolved questions count against every budget. `BUDGETS` is the one
list of budgets: context_to_answer.py, the scoreboard, their JSON output and their tests all read it here.

Run as a script it compares two runs' curves, before → after, from their JSON (a scoreboard `--json` folder
or a context_to_answer.py `--json` file each):

    python benchmarks/quality/budget.py BEFORE AFTER [--half tune] [--policies in-doc,pipeline,agent]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

# benchmarks/: common.py, question_files.py and the other folders
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import common as cm

#: The budgets in characters, smallest first.
BUDGETS = (2_000, 4_000, 8_000, 16_000, 32_000)


class Outcome(Protocol):
    """What the curve needs of one (question, policy) run."""

    solved: bool
    chars: int


def within(runs: Iterable[Outcome]) -> dict[int, int]:
    """Per budget: how many runs solved their question within that many characters."""
    chars = [r.chars for r in runs if r.solved]
    return {b: sum(1 for c in chars if c <= b) for b in BUDGETS}


def shares(counts: Mapping[Any, int], n: int) -> list[float]:
    """The curve in percent of all `n` questions, one value per budget (JSON keys may be strings)."""
    return [100 * counts.get(b, counts.get(str(b), 0)) / max(1, n) for b in BUDGETS]


def headers() -> list[str]:
    """The curve's column headers: 'within 2,000' … 'within 32,000'."""
    return [f"within {b:,}" for b in BUDGETS]


def cells(stat: Mapping[str, Any]) -> list[str]:
    """One policy's curve as table cells (one decimal, as the issue states it) from its summary."""
    return [f"{s:.1f}%" for s in shares(stat["within"], stat["n"])]


def table(labelled: Sequence[tuple[Sequence[str], Mapping[str, Any]]], labels: Sequence[str]) -> str:
    """A markdown table: the label columns, questions, the curve, then the share solved at any size."""
    rows = [
        [*label, f"{s['n']:.0f}", *cells(s), f"{100 * s['solved'] / max(1, s['n']):.1f}%"]
        for label, s in labelled
        if s["n"]
    ]
    return cm.md_table([*labels, "questions", *headers(), "solved at any size"], rows)


def pooled(stats: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Several summaries (sets, halves) as one: questions, solved and within-budget counts added."""
    out: dict[str, Any] = {"n": 0, "solved": 0, "within": dict.fromkeys(BUDGETS, 0)}
    for s in stats:
        out["n"] += s["n"]
        out["solved"] += s["solved"]
        for b in BUDGETS:
            out["within"][b] += s["within"].get(b, s["within"].get(str(b), 0))
    return out


# --- comparing two runs ---------------------------------------------------------------------------
Key = tuple[str, str, str, str]  # (set, form, half, policy)


def load_run(path: Path) -> dict[Key, Mapping[str, Any]]:
    """Each (set, form, half, policy)'s summary from a run's JSON: a scoreboard folder (`set.json`,
    `set.terse.json`) or one context_to_answer.py file (named by its stem)."""
    out: dict[Key, Mapping[str, Any]] = {}
    for file in sorted(path.glob("*.json")) if path.is_dir() else [path]:
        data = json.loads(file.read_text(encoding="utf-8"))
        if "forms" in data:  # context_to_answer.py --json: per form, the summary per half
            halves = {(form, h): s for form, f in data["forms"].items() for h, s in f["summary"].items()}
            name = file.stem
        else:  # the scoreboard's per-set file (one form; written before forms existed: full)
            halves = {(data.get("form", "full"), h): s for h, s in data["stats"].items()}
            name = data["name"]
        for (form, h), by_policy in halves.items():
            out.update({(name, form, h, p): s for p, s in by_policy.items()})
    return out


def compare(before: dict[Key, Mapping[str, Any]], after: dict[Key, Mapping[str, Any]], keep: Any) -> str:
    """The curve of each key both runs have (and `keep` accepts), each cell 'before → after' where it moved;
    with several sets, their pooled rows first."""

    def cell(a: float, b: float) -> str:
        return f"{a:.1f}%" if abs(a - b) < 0.05 else f"{a:.1f} → {b:.1f}%"

    keys = [k for k in after if k in before and keep(k)]
    sets = sorted({k[0] for k in keys})
    groups = list(dict.fromkeys(k[1:] for k in keys)) if len(sets) > 1 else []
    # Every set pooled first (per form, half and policy): the figure a change is decided on.
    pairs: list[tuple[Sequence[str], Mapping[str, Any], Mapping[str, Any]]] = [
        (
            (f"all {len(sets)} sets", *g),
            *(pooled(run[k] for k in keys if k[1:] == g) for run in (before, after)),
        )
        for g in groups
    ]
    pairs += [(k, before[k], after[k]) for k in keys]
    rows = []
    for key, a, b in pairs:
        pa, pb = shares(a["within"], a["n"]), shares(b["within"], b["n"])
        solved = [100 * s["solved"] / max(1, s["n"]) for s in (a, b)]
        rows.append(
            [*key, f"{b['n']:.0f}", *(cell(x, y) for x, y in zip(pa, pb, strict=True)), cell(*solved)]
        )
    return cm.md_table(
        ["site", "form", "half", "policy", "questions", *headers(), "solved at any size"], rows
    )


def pooled_run(folder: Path) -> dict[str, Any]:
    """A scoreboard run's curve, every set pooled: per form, half and policy the added counts; with the sets
    and the run's provenance (one commit for all sets; the lowest and highest load at the sets' starts and ends)."""
    results = [json.loads(f.read_text(encoding="utf-8")) for f in sorted(folder.glob("*.json"))]
    results = [r for r in results if "stats" in r]
    if not results:
        raise SystemExit(f"{folder}: no scoreboard result files (set.json, set.terse.json) there")
    unrecorded = [r["name"] for r in results if "run" not in r]
    if unrecorded:
        raise SystemExit(f"{folder}: these sets' files name no command, commit and load: {unrecorded}")
    commits = {r["run"]["commit"] for r in results}
    if len(commits) > 1:
        raise SystemExit(f"{folder}: the sets were measured on different commits: {sorted(commits)}")
    runs = [r["run"] for r in results]
    forms = dict.fromkeys(r.get("form", "full") for r in results)
    curve = {
        form: {
            h: {
                p: pooled(r["stats"][h][p] for r in results if r.get("form", "full") == form)
                for p in results[0]["stats"][h]
            }
            for h in cm.HALVES
        }
        for form in forms
    }
    return {
        **max(runs, key=lambda run: run["date"]),
        # The 1-min load at each set's start and end: the lowest and highest seen (a run takes an hour or more).
        "load": [min(x for r in runs for x in r["load"]), max(x for r in runs for x in r["load"])],
        "values": {"sets": sorted({r["name"] for r in results}), "curve": curve},
    }


def main(argv: list[str] | None = None) -> None:
    """Print the before → after curve of two runs."""
    parser = argparse.ArgumentParser(description="Compare two runs' budget curves, before → after.")
    parser.add_argument(
        "before", type=Path, help="a scoreboard --json folder or a context_to_answer.py --json file"
    )
    parser.add_argument("after", type=Path, help="the same for the run to compare")
    parser.add_argument("--half", choices=cm.HALVES, default=None, help="only this half")
    parser.add_argument("--policies", default=None, help="only these policies (comma-separated)")
    args = parser.parse_args(argv)
    policies = set(args.policies.split(",")) if args.policies else None
    print(
        compare(
            load_run(args.before),
            load_run(args.after),
            lambda k: args.half in (None, k[2]) and (policies is None or k[3] in policies),
        )
    )


if __name__ == "__main__":
    main()
