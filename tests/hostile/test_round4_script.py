"""benchmarks/reliability/round4.py stays one command away: its quickest part runs end to end on loopback and
writes its row of the Fourth round table into a copy of docs/reliability.md."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(200)
def test_the_round4_script_measures_a_stateless_get_and_writes_its_row(tmp_path):
    doc = tmp_path / "reliability.md"
    shutil.copy(REPO / "docs" / "reliability.md", doc)
    out = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "reliability" / "round4.py"),
            "--only",
            "stateless",
            "--results",
            str(tmp_path / "results.json"),
            "--out",
            str(doc),
        ],
        capture_output=True,
        text=True,
        timeout=150,
        cwd=REPO,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "stateless GET /mcp: 405 in " in out.stdout and "[load " in out.stdout, out.stdout
    text = doc.read_text()
    assert text.count("## Fourth round") == 1
    assert text.index("## Fourth round") < text.index("## Hostile origin\n")  # beside rounds 2 and 3
    row = next(line for line in text.splitlines() if line.startswith("| 3. stateless `GET /mcp`"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2].startswith("405 in ") and cells[3:] == ["405 at once", "yes"], row
