"""index_scale.py's first reads: one that fails (the deadline, on a busy machine) is a NaN, and the build's figures
are printed all the same."""

from __future__ import annotations

import asyncio
import math
import sys
from pathlib import Path

from conftest import SITE

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))
from scale import index_scale  # noqa: E402  (benchmarks/ is a folder of scripts, not a package)


def test_a_first_read_that_fails_is_nan_not_the_end_of_the_run(tmp_path):
    missing = (SITE / "no-such-page.html").as_uri()
    stored, fetched = asyncio.run(index_scale.first_reads(str(SITE), tmp_path, missing))
    assert math.isnan(stored) and math.isnan(fetched)


def test_a_first_read_that_answers_is_timed_in_milliseconds(tmp_path):
    page = next(p for p in sorted(SITE.glob("*.html")))
    stored, fetched = asyncio.run(index_scale.first_reads(str(SITE), tmp_path, page.as_uri()))
    assert 0 < stored < 60_000 and 0 < fetched < 60_000
