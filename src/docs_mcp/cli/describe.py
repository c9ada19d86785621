"""How the subagent's description (`docslice agent`) names a source: by its site's title in a bounded, neutral
form, since the main conversation reads it (a title never instructs), else by the source's name."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from docs_mcp.site_words import INSTRUCTION_WORDS
from docs_mcp.text.controls import escaped

if TYPE_CHECKING:
    from docs_mcp.fetch.sources import Source

#: A site's title in the description: its first sentence, cut to this many characters at a word.
TITLE_CHARS = 60
_SENTENCE_END = re.compile(r"[.!?;:](?:\s|$)|[\r\n]")


def neutral_title(title: str) -> str:
    """A site's title as the description names it: its first sentence, at most TITLE_CHARS (whole words),
    escaped; "" when it addresses the reader's assistant (site_words.INSTRUCTION_WORDS) instead of naming docs."""
    words = _SENTENCE_END.split(title, 1)[0].split()
    if any(w.strip("\"'.,!?()[]*_`").lower() in INSTRUCTION_WORDS for w in words):
        return ""
    kept: list[str] = []
    size = -1
    for word in words:
        size += len(word) + 1
        if size > TITLE_CHARS:
            return escaped(" ".join(kept) + "…") if kept else escaped(word[: TITLE_CHARS - 1] + "…")
        kept.append(word)
    return escaped(" ".join(kept))


def source_label(s: Source, title: str) -> str:
    title = neutral_title(title)
    where = f"{'local folder ' if s.is_local else ''}{s.root}"
    return f"{title} ({where})" if title else f"{s.name} ({where})"
