"""The progress bar's time estimate: steady while a crawl finds its pages, yet following real changes."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

#: Seconds of recent progress the rate is measured over: long enough to average out bursts of small
#: pages and pauses on big ones, short enough to follow a site that slows down.
RATE_WINDOW = 20.0
#: The estimate changes by at most ×2 (or ÷2) per this many seconds: a crawl that finds hundreds of new
#: links at once moves it over a few updates, not in one jump (49 s → 224 s).
DOUBLING_SECONDS = 2.0
#: Before this much progress there is no rate worth an estimate.
MIN_SECONDS, MIN_PAGES = 2.0, 3


@dataclass
class Eta:
    """Seconds left, from (time, pages done, pages known) samples; None until a rate is known."""

    samples: deque[tuple[float, int]] = field(default_factory=deque)
    shown: float | None = None
    at: float = 0.0

    def rate(self, now: float, done: int) -> float | None:
        """Pages per second over the last RATE_WINDOW seconds (None before MIN_SECONDS and MIN_PAGES)."""
        self.samples.append((now, done))
        while len(self.samples) > 2 and now - self.samples[1][0] >= RATE_WINDOW:
            self.samples.popleft()
        start, first = self.samples[0]
        if now - start < MIN_SECONDS or done - first < MIN_PAGES:
            return None
        return (done - first) / (now - start)

    def update(self, now: float, done: int, total: int) -> float | None:
        rate = self.rate(now, done)
        if rate is None:
            return self.shown
        target = max(total - done, 0) / rate
        if self.shown is not None and self.shown > 0:
            step = 2.0 ** ((now - self.at) / DOUBLING_SECONDS)
            target = min(max(target, self.shown / step), self.shown * step)
        self.shown, self.at = target, now
        return target
