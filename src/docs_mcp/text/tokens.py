"""Token estimates for measuring context: a linear model over character classes, calibrated offline.

chars/4 is wrong for code (punctuation-dense) and CJK (about one token per character), so the estimate
counts words, long-word pieces, digit groups, CJK characters, punctuation and line breaks separately.
Weights come from benchmarks/quality/token_calibration.py (least squares against a reference BPE tokenizer).
"""

from __future__ import annotations

import re

from docs_mcp.text.cjk import CJK_CHAR, CJK_RANGES

_WORD = re.compile(r"[A-Za-z]+")
_DIGITS = re.compile(r"[0-9]+")
_PUNCT = re.compile(rf"[^\sA-Za-z0-9{CJK_RANGES}]")

#: Weights for (words, extra pieces of words longer than 6 letters, digit groups of 3, CJK characters,
#: punctuation characters, line breaks), fitted by benchmarks/quality/token_calibration.py.
WEIGHTS = (1.05, 0.1, 1.47, 1.03, 0.58, 1.32)
#: Error against the reference tokenizer on the calibration set (mean / p90 / max absolute error, %).
CALIBRATION_ERROR = "mean 2.6%, p90 5.4%, max 15.4% (chars/4: mean 8.9%, p90 18.5%, max 70%)"
#: The same, for people: what `measure`'s footnote says.
CALIBRATION_PLAIN = (
    "usually within 3% of a real tokenizer's count (1 in 10 texts off by more than 5%, at worst 15%)"
)


def features(text: str) -> tuple[float, ...]:
    """Counts the estimate is linear in."""
    words = _WORD.findall(text)
    long_pieces = sum((len(w) - 1) // 6 for w in words)
    digit_groups = sum((len(d) + 2) // 3 for d in _DIGITS.findall(text))
    return (
        len(words),
        long_pieces,
        digit_groups,
        len(CJK_CHAR.findall(text)),
        len(_PUNCT.findall(text)),
        text.count("\n"),
    )


def estimate_tokens(text: str) -> int:
    """Estimated tokens of a text (see WEIGHTS for the calibration and its error)."""
    return round(sum(w * f for w, f in zip(WEIGHTS, features(text), strict=True)))
