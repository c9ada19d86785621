"""The budget curve, the headline figure: the share of ALL questions answered within B characters of context.

A question counts within B when a policy solved it and the characters the model saw up to and including the
response holding a needle are at most B; unsolved questions count against every budget. `BUDGETS` is the one
list of budgets: context_to_answer.py, the scoreboard, their JSON output and their tests all read it here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

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
