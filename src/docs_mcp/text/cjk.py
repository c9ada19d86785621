"""CJK text: the scripts written without spaces between words, whose runs are read as character bigrams."""

from __future__ import annotations

import re

#: CJK ideographs (with extension A and the compatibility block), hiragana and katakana (full- and half-width)
#: and hangul syllables.
CJK_RANGES = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\uff66-\uff9f"
CJK_CHAR = re.compile(f"[{CJK_RANGES}]")
CJK_RUN = re.compile(f"[{CJK_RANGES}]+")


def cjk_bigrams(run: str) -> list[str]:
    """Overlapping character pairs of a CJK run (a lone character stands for itself)."""
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]
