"""The progress bar's ETA over synthetic crawls: steady (never more than ×2 between updates) while the crawl
finds its pages, close to the truth once the site is known, and following a real slowdown."""

from __future__ import annotations

import random
from itertools import pairwise

from docs_mcp.cli.eta import Eta

#: A crawl like the Python docs' 528 pages: the root links to 40, a contents page to 160, the index to 480.
JUMPS = {1: 40, 10: 160, 60: 480}
PAGES = 528


def crawl(rate: float, every: float, slow_after: int | None = None) -> list[tuple[float, int, int]]:
    """(time, done, known) at each progress-bar update of a crawl at about `rate` pages/s (jittered), its
    known pages growing as links are found; `slow_after`: the rate halves from that page on."""
    rng = random.Random(7)
    t, known, finished = 0.0, 1, []
    for done in range(1, PAGES + 1):
        speed = rate / 2 if slow_after is not None and done > slow_after else rate
        t += rng.uniform(0.5, 1.5) / speed  # page sizes vary: ±50% per page
        finished.append(t)
    samples, clock, done = [], every, 0
    while done < PAGES:
        while done < PAGES and finished[done] <= clock:
            done += 1
            known = JUMPS.get(done, min(PAGES, known + (1 if done > 60 and done % 10 == 0 else 0)))
        samples.append((clock, done, max(known, done)))
        clock += every
    return samples


def estimates(samples: list[tuple[float, int, int]]) -> list[float | None]:
    eta = Eta()
    return [eta.update(*s) for s in samples]


def cumulative(samples: list[tuple[float, int, int]]) -> list[float]:
    """The estimate before: pages left over the whole build's average rate."""
    return [(total - done) / (done / t) if done else 0.0 for t, done, total in samples]


def swings(values: list[float | None]) -> list[float]:
    shown = [v for v in values if v is not None]
    return [max(a, b) / min(a, b) for a, b in pairwise(shown) if min(a, b) > 0]


def test_the_old_estimate_swings_more_than_twofold_on_this_crawl():
    assert max(swings(cumulative(crawl(6.5, 2.0))[1:])) > 2  # the synthetic crawl reproduces the friction


def test_the_estimate_never_swings_more_than_twofold_between_updates():
    for every in (2.0, 0.1):  # a log's updates, a terminal's
        values = estimates(crawl(6.5, every))
        assert max(swings(values)) <= 2.0 + 1e-9, every
        assert values[0] is None  # no estimate before a rate is known


def test_the_estimate_is_close_to_the_truth_once_the_site_is_known():
    samples = crawl(6.5, 2.0)
    values = estimates(samples)
    end = samples[-1][0]
    for (t, done, _), value in zip(samples, values, strict=True):
        if 150 <= done <= 450:  # after the last big jump, before the last seconds
            assert abs(value - (end - t)) <= 0.25 * (end - t), (t, done, value, end - t)


def test_the_estimate_follows_a_site_that_slows_down():
    samples = crawl(6.5, 2.0, slow_after=200)
    values = estimates(samples)
    end = samples[-1][0]
    late = [(t, v) for (t, done, _), v in zip(samples, values, strict=True) if 300 <= done <= 450]
    assert late and all(abs(v - (end - t)) <= 0.25 * (end - t) for t, v in late)
