"""Display text: whitespace folded, zero-width characters dropped, long strings clipped with an ellipsis."""

from __future__ import annotations

import re

_ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\ufeff]")


def fold_space(text: str) -> str:
    """Every run of whitespace as one space, none at the ends."""
    return " ".join(text.split())


def normalize_space(text: str) -> str:
    """`fold_space`, zero-width characters (joiners, byte-order marks) removed first."""
    return fold_space(_ZERO_WIDTH.sub("", text))


def clip(text: str, limit: int) -> str:
    """The text if it has at most `limit` chars, else its first `limit - 1` (trailing space dropped) and `…`."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
