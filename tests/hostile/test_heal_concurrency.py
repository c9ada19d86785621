"""Healing under concurrency (issue 34, item 2, and item 7's deleted file): the index overwritten with random
bytes while four callers search never crashes the process nor answers an internal error; a file deleted
while serving is noticed (readiness says why) and healed as a damaged one."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser

REPO = Path(__file__).resolve().parents[2]
SITE = REPO / "fixtures" / "site"
BENCH = REPO / "benchmarks" / "reliability" / "heal_under_load.py"


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_random_bytes_over_the_index_under_four_callers_crash_nothing_and_answer_clearly():
    run = subprocess.run(
        [sys.executable, str(BENCH), "--tries", "2", "--callers", "4", "--seconds", "3"],
        capture_output=True,
        text=True,
        timeout=280,
        env={"PYTHONPATH": str(REPO / "src"), "PATH": ""},
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "2 tries, 4 callers: 0 crashes, 0 internal-error answers" in run.stdout, run.stdout
    assert "other DocsMCPError" not in run.stdout, run.stdout  # answered, or told the index is rebuilt
    assert "rebuilt message" in run.stdout, run.stdout  # the damage was met, not missed


def app_for(cache: Path) -> App:
    argv = ["serve", "--cache-dir", str(cache), "--source", str(SITE), "--no-index"]
    return App(parser().parse_args(argv), workers=1)


@pytest.mark.slow
def test_an_index_deleted_while_serving_is_noticed_and_healed(tmp_path):
    app = app_for(tmp_path)
    asyncio.run(app.indexer.run())
    assert app.readiness() == ""
    (tmp_path / "index.sqlite").unlink()
    why = app.readiness()
    assert "was damaged while in use (the file was deleted)" in why and "a new one is built" in why
    assert (tmp_path / "index.sqlite").exists()  # a new, empty index in its place
    assert app.readiness() == "the index holds no page of these sources yet"
    asyncio.run(app.indexer.run())
    assert app.readiness() == "" and app.index.page_count() > 0
    app.index.close()
