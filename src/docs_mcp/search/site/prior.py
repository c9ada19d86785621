"""The thieves' prior (issue 42 item 3): pages that a source's self-audit, at the end of its build, found above
the right page for many other pages' known items (audit/prior.py) are lowered in its site search. Stored per
source in the index's meta (page key → strength in (0, 1]); read per search, parsed once per stored text."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

from docs_mcp.settings import PRIOR_REACH, PRIOR_STRENGTH
from docs_mcp.store.interface import Reads, Scope

#: The meta key of a source's prior: this, then the key prefix of its pages.
PRIOR_META = "prior:"
#: Stored texts parsed and kept at most (one per source and build; a new build's text replaces its source's).
MEMO_SIZE = 256


def prior_meta(prefix: str) -> str:
    """The meta key of the prior of the source whose pages' keys start with `prefix`."""
    return PRIOR_META + prefix


class Priors:
    """The stored priors of a scope's sources, parsed once per stored text."""

    def __init__(self) -> None:
        self._parsed: dict[str, dict[str, float]] = {}
        self._lock = threading.Lock()

    def of(self, reads: Reads, scope: Scope) -> dict[str, float]:
        """Page key → strength over the scope's sources ({} when none has a prior)."""
        out: dict[str, float] = {}
        for prefix in scope.prefixes:
            text = reads.meta(prior_meta(prefix))
            if text:
                out.update(self._parse(text))
        return out

    def _parse(self, text: str) -> dict[str, float]:
        found = self._parsed.get(text)
        if found is None:
            found = {str(k): float(v) for k, v in json.loads(text).items()}
            with self._lock:
                if len(self._parsed) >= MEMO_SIZE:
                    self._parsed.clear()
                self._parsed[text] = found
        return found

    def lowered(
        self,
        reads: Reads,
        scope: Scope,
        combined: dict[int, float],
        keys_of: Callable[[set[int]], dict[int, str]],
        exempt: set[int],
    ) -> dict[int, float]:
        """The scores with each prior page's (but the `exempt` ones') lowered by its strength × the gap between
        the best score and the PRIOR_REACH-th (a scale of this query's own: z-scores or BM25 sums by then)."""
        strengths = self.of(reads, scope) if combined else {}
        if not strengths:
            return combined
        scores = sorted(combined.values(), reverse=True)
        gap = scores[0] - scores[min(PRIOR_REACH, len(scores)) - 1]
        keys = keys_of(set(combined) - exempt)
        out = dict(combined)
        for pid, key in keys.items():
            if key in strengths:
                out[pid] -= PRIOR_STRENGTH * strengths[key] * gap
        return out
