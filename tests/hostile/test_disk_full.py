"""Hostile: the disk under the index fills up during a build. The build says so plainly and exits 1, the
pages indexed before stay searchable, and the next start neither moves the index aside nor leaves it empty."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

SITE = Path(__file__).resolve().parents[2] / "fixtures" / "site"
pytestmark = [pytest.mark.timeout(240), pytest.mark.slow]


def docs_mcp(*args: str, source: Path, cache: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "docs_mcp", *args, "--source", str(source), "--cache-dir", str(cache)],
        capture_output=True,
        text=True,
        timeout=180,
    )


@pytest.fixture
def small_disk(tmp_path):
    """A 16 MB tmpfs (root only); skipped where mounting is not allowed."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    run = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mnt)], capture_output=True)
    if run.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {run.stderr.decode().strip() or run.returncode}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def big_site(root: Path, pages: int = 300) -> Path:
    root.mkdir()
    words = " ".join(f"word{i} tide gauge datum harmonic" for i in range(400))
    for k in range(pages):
        (root / f"p{k}.html").write_text(
            f"<html><body><main><h1>Page {k}</h1><p>{words} {k}</p></main></body></html>"
        )
    return root


def pages_in(index: Path) -> int:
    with sqlite3.connect(index) as db:
        return db.execute("SELECT count(*) FROM pages").fetchone()[0]


def outcome_of(index: Path, root: Path) -> str:
    """The build outcome stored for a folder source, as JSON, or "" (none was stored)."""
    with sqlite3.connect(index) as db:
        row = db.execute("SELECT value FROM meta WHERE key LIKE ?", (f"build:%{root.name}%",)).fetchone()
    return row[0] if row else ""


def test_a_full_disk_is_said_plainly_and_the_pages_indexed_before_are_kept(tmp_path, small_disk):
    cache = small_disk / "cache"
    first = docs_mcp("index", "--workers", "1", source=SITE, cache=cache)
    assert first.returncode == 0, first.stderr
    before = pages_in(cache / "index.sqlite")
    filler = small_disk / "filler"  # what fills the disk; removing it makes room again
    filler.write_bytes(b"\0" * max(0, shutil.disk_usage(small_disk).free - 512 * 1024))
    big = big_site(tmp_path / "big")
    run = docs_mcp("index", "--workers", "1", source=big, cache=cache)
    assert run.returncode == 1
    assert "is full (" in run.stderr and "the index keeps the pages indexed before" in run.stderr
    assert "cannot rollback" not in run.stderr and "Traceback" not in run.stderr
    filler.unlink()  # room again: the next start must find the old index intact
    again = docs_mcp("search", "harmonic constituents fitted by least squares", source=SITE, cache=cache)
    assert again.returncode == 0, again.stderr
    assert "damaged" not in again.stderr and "moved aside" not in again.stderr
    assert not list(cache.glob("*.damaged-*"))
    assert (cache / "index.sqlite").stat().st_size > 0
    assert pages_in(cache / "index.sqlite") >= before
    assert "big-reference.html" in again.stdout
    # The source the full disk cut short: its status says pages are missing, not only how many it has.
    stored = outcome_of(cache / "index.sqlite", big)  # before `search` may build it again
    print("outcome of the cut build:", stored)
    short = docs_mcp("search", "tide gauge datum", source=big, cache=cache)
    assert short.returncode == 0, short.stderr
    noted = "pages may be missing" in short.stdout or "could not store" in short.stdout
    # Or, when the full disk let none of its pages be stored, the source is empty and `search` builds empty
    # sources first (seen in CI, by how far the cut build got): then it says nothing is missing, rightly.
    rebuilt = "300 pages via folder" in short.stderr and "index: 300 pages" in short.stdout
    assert noted or rebuilt, (stored, short.stderr[-600:], short.stdout[:600])
