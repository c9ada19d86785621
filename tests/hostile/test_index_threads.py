"""Hostile: the index and its analysis under threads and processes (issue 13, item 8).

The stemmer is shared by every thread of a server; readers search while another process rewrites the index.
"""

from __future__ import annotations

import re
import sys
import threading
from pathlib import Path

import snowballstemmer

from docs_mcp.text import terms as analysis

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def words() -> list[str]:
    """Distinct words of every fixture page, with inflections the stemmer has to cut (thousands of them)."""
    text = " ".join(p.read_text(encoding="utf-8", errors="replace") for p in FIXTURES.rglob("*.htm*"))
    base = sorted({w.lower() for w in re.findall(r"[A-Za-z]{3,}", text)})
    return [w + suffix for w in base for suffix in ("", "s", "ing", "ed", "ness", "ations")]


def test_stems_computed_by_four_threads_at_once_are_the_single_threaded_stems():
    vocabulary = words()
    assert len(vocabulary) > 5_000
    expected = {w: snowballstemmer.stemmer("english").stemWord(w) for w in vocabulary}
    analysis.stem.cache_clear()  # nothing memoized: every stem is computed under the race
    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def work(offset: int) -> None:
        barrier.wait()
        try:
            for w in vocabulary[offset:] + vocabulary[:offset]:
                analysis.stem(w)
        except Exception as exc:  # a shared stemmer raises mid-word too
            errors.append(exc)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: a shared stemmer is caught at once
    try:
        threads = [threading.Thread(target=work, args=(k * 997,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    wrong = {w: analysis.stem(w) for w in vocabulary if analysis.stem(w) != expected[w]}
    analysis.stem.cache_clear()  # leave no memo of this test behind
    assert errors == []
    assert wrong == {}, f"{len(wrong)} wrong stems memoized, e.g. {list(wrong.items())[:3]}"
