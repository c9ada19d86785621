"""Names, titles and headings are data: the characters that would act instead of being read (a newline that
writes its own line into what the model reads, an escape sequence a terminal obeys, a bidirectional override
that reorders a line) are shown escaped. This module is the one owner of that set and of both escapings."""

from __future__ import annotations

import os
import re

#: C0 controls, DEL, C1 controls and lone surrogates: escaped in every text a terminal shows.
_CONTROL_RANGES = "\x00-\x1f\x7f-\x9f\ud800-\udfff"
#: Line and paragraph separators, bidirectional embeddings, overrides and isolates: they reorder or break
#: what a terminal shows around them (a "Trojan Source" line), so a page's text keeps them escaped too.
_REORDERING = "\u2028-\u202e\u2066-\u2069"
#: Never shown raw: C0 controls (newline, ESC …), DEL and C1 controls (CSI, NEL …), line and paragraph
#: separators, bidirectional embeddings, overrides, isolates and marks, invisible spaces and joiners that
#: make two names look alike, and lone surrogates (the bytes of a file name that are not UTF-8).
#: Zero-width (non-)joiners (U+200C, U+200D) stay: scripts and emoji are written with them.
UNSAFE = re.compile(f"[{_CONTROL_RANGES}{_REORDERING}\u061c\u200b\u200e\u200f\u2060-\u2064\ufeff]")
#: What a terminal obeys (C0 controls, DEL, C1 controls), what reorders its lines, and lone surrogates (no
#: encoder writes them): all a page's own text needs escaped on a terminal; its invisible marks (U+200E) and
#: spaces are text the model reads as they are.
CONTROLS = re.compile(f"[{_CONTROL_RANGES}{_REORDERING}]")
_UNSAFE_OR_PERCENT = re.compile(f"{UNSAFE.pattern[:-1]}%]")
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _backslashed(m: re.Match[str]) -> str:
    c = m.group(0)
    if c in _SHORT:
        return _SHORT[c]
    return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"


def escaped(text: str, keep: str = "", unsafe: re.Pattern[str] = UNSAFE) -> str:
    """`text` with each `unsafe` character (but those in `keep`) as a visible escape (`\\n`, `\\x1b`,
    `\\u202e`): a title, heading or id shown on one line and on a terminal. Applying it twice changes nothing."""
    if not unsafe.search(text):
        return text
    if keep:
        return unsafe.sub(lambda m: m.group(0) if m.group(0) in keep else _backslashed(m), text)
    return unsafe.sub(_backslashed, text)


def percent_encoded(name: str) -> str:
    """A file name or path as data that reads back to the same bytes: each unsafe character and `%` as the
    percent-escapes of its bytes in the file system's encoding (`guide%0Aevil.md`, `bad%FFname.md`)."""
    return _UNSAFE_OR_PERCENT.sub(lambda m: "".join(f"%{b:02X}" for b in os.fsencode(m.group(0))), name)
