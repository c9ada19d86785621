"""benchmarks/reliability/reliability.py stays one command away: its fuzz part runs end to end on loopback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(400)  # the script is given 300 s
def test_the_reliability_script_fuzzes_and_reports_its_counts():
    out = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "reliability" / "reliability.py"),
            "--only",
            "fuzz",
            "--fuzz-calls",
            "150",
            "--seed",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "## Fuzzing" in out.stdout
    row = next(line for line in out.stdout.splitlines() if line.startswith("| fuzz, seed 1 "))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1:6] == ["150", "0", "0", "0", "0"], row  # calls, crashes, outside, over cap, unexpected
