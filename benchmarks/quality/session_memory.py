"""The agent policy with and without a session's memory (issue 46 item 3), from two scoreboard runs' JSON.

Run the scoreboard's agent policy twice, without the memory and with it (the default), then compare:

    DOCSLICE_ABLATE=session nice -n 10 python benchmarks/quality/context_to_answer.py --all --policies agent \
        --form both --json /tmp/without
    nice -n 10 python benchmarks/quality/context_to_answer.py --all --policies agent --form both --json /tmp/with
    python benchmarks/quality/session_memory.py /tmp/without /tmp/with

Per set, form and half present in both runs: questions, solved within 8,000 / 16,000 / 32,000 chars, and chars
per solved question; then the totals per half (chars per solved: all chars over all solved questions).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

BUDGETS = ("8000", "16000", "32000")
HALVES = ("tune", "validate")


def load(folder: Path) -> dict[str, dict[str, Any]]:
    """Each result file of a scoreboard --json folder, by its file name (set and form)."""
    return {p.name: json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))}


def figures(stats: dict[str, Any]) -> dict[str, float]:
    """The agent's questions, solved within each budget, solved, and chars in all."""
    agent = stats["agent"]
    out = {b: float(agent["within"][b]) for b in BUDGETS}
    out["n"], out["solved"] = float(agent["n"]), float(agent["solved"])
    out["chars"] = agent["chars_per_solved"] * agent["solved"] if agent["solved"] else 0.0
    return out


def row(name: str, half: str, off: dict[str, float], on: dict[str, float]) -> str:
    def per(f: dict[str, float]) -> str:
        return f"{f['chars'] / f['solved']:,.0f}" if f["solved"] else "—"

    within = " | ".join(f"{off[b]:.0f} → {on[b]:.0f}" for b in BUDGETS)
    return f"| {name} | {half} | {off['n']:.0f} | {within} | {per(off)} → {per(on)} |"


def compare(without: Path, with_memory: Path) -> str:
    """The table of both runs, per set, form and half, and the totals per half."""
    off, on = load(without), load(with_memory)
    lines = [
        "| set (form) | half | questions | within 8k | within 16k | within 32k | chars per solved |",
        "|---|---|---|---|---|---|---|",
    ]
    totals = {h: ({}, {}) for h in HALVES}
    for name in sorted(set(off) & set(on)):
        label = f"{off[name]['name']} ({off[name].get('form', 'full')})"
        for half in HALVES:
            a, b = figures(off[name]["stats"][half]), figures(on[name]["stats"][half])
            lines.append(row(label, half, a, b))
            for total, f in zip(totals[half], (a, b), strict=True):
                for k, v in f.items():
                    total[k] = total.get(k, 0.0) + v
    for half, (a, b) in totals.items():
        if a:
            lines.append(row("**all**", half, a, b))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("without", type=Path, help="the --json folder of the run without the memory")
    parser.add_argument("with_memory", type=Path, help="the --json folder of the run with it")
    args = parser.parse_args()
    print(compare(args.without, args.with_memory))


if __name__ == "__main__":
    main()
