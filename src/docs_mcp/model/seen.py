"""What one MCP session was shown, per section of a page: the spans of its markdown and the call that sent
each (tools/session.py keeps it between calls); and one page's view of it for the tools that answer."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from docs_mcp import settings as C
from docs_mcp.model.document import Document

#: A span of a section's own markdown shown: [start, end, the session's call that showed it].
Span = list[int]


@dataclass
class Seen:
    """One session's memory: its calls so far, the chars sent, and per section the spans shown."""

    calls: int = 0
    used: int = 0
    #: "url#id" (with " +code" when code blocks were shown) -> merged spans, oldest call kept.
    spans: dict[str, list[Span]] = field(default_factory=dict)

    def record(self, key: str, start: int, end: int) -> None:
        """Remember [start, end) of a section's markdown as shown by the current call."""
        if end <= start:
            return
        spans = self.spans.pop(key, [])  # re-inserted last: the oldest section is the first dropped
        merged: list[Span] = []
        for s in sorted([*spans, [start, end, self.calls]]):
            if merged and s[0] <= merged[-1][1]:
                last = merged[-1]
                last[1], last[2] = max(last[1], s[1]), min(last[2], s[2])
            else:
                merged.append(list(s))
        self.spans[key] = merged[-C.SESSION_SPANS :]
        while len(self.spans) > C.SESSION_SECTIONS:
            del self.spans[next(iter(self.spans))]

    def covered(self, key: str, start: int, end: int) -> int | None:
        """The call that showed at least SESSION_COVERED of [start, end), None if none did."""
        shown, first = 0, None
        for a, b, call in self.spans.get(key, ()):
            overlap = min(b, end) - max(a, start)
            if overlap > 0:
                shown += overlap
                first = call if first is None else min(first, call)
        return first if end > start and shown >= C.SESSION_COVERED * (end - start) else None

    def shown_in(self, key: str, start: int, end: int) -> list[Span]:
        """The spans shown within [start, end), clipped to it."""
        out = []
        for a, b, call in self.spans.get(key, ()):
            if min(b, end) > max(a, start):
                out.append([max(a, start), min(b, end), call])
        return out

    def dumps(self) -> str:
        return json.dumps({"c": self.calls, "u": self.used, "s": self.spans}, separators=(",", ":"))

    @classmethod
    def loads(cls, text: str | None) -> Seen:
        if not text:
            return cls()
        data = json.loads(text)
        return cls(int(data["c"]), int(data["u"]), {k: [list(s) for s in v] for k, v in data["s"].items()})


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st."""
    tail = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{tail}"


def shown_note(call: int) -> str:
    """`shown in your 2nd call`: the words of every pointer."""
    return f"shown in your {ordinal(call)} call"


@dataclass
class PageView:
    """A session's memory as one answer over one page sees it (`code`: the markdown with code blocks)."""

    seen: Seen
    doc: Document
    code: bool
    #: repeat=true: nothing counts as shown (what is sent is still remembered).
    repeat: bool = False

    def key(self, i: int) -> str:
        return f"{self.doc.url}#{self.doc.sections[i].id}" + (" +code" if self.code else "")

    def whole(self, i: int) -> int | None:
        """The call that showed section i's own text (nearly) whole, None if none did."""
        if self.repeat:
            return None
        return self.seen.covered(self.key(i), 0, len(self.doc.own_markdown(i, self.code)))

    def covered(self, i: int, spans: list[tuple[int, int]] | None) -> int | None:
        """The latest call among those that showed each of `spans` (None: the whole section), if all were."""
        if spans is None or self.repeat:
            return self.whole(i)
        calls = [self.seen.covered(self.key(i), a, b) for a, b in spans]
        return None if not calls or None in calls else max(c for c in calls if c is not None)

    def record(self, i: int, spans: list[tuple[int, int]] | None) -> None:
        """Remember the spans of section i shown now (None: all of it)."""
        for a, b in spans if spans is not None else [(0, len(self.doc.own_markdown(i, self.code)))]:
            self.seen.record(self.key(i), a, b)

    def shown(self) -> dict[int, list[tuple[int, int]] | None]:
        """Per section of the page shown before: None when whole, else its spans (as the page map reads them)."""
        out: dict[int, list[tuple[int, int]] | None] = {}
        prefix = f"{self.doc.url}#"
        if not any(k.startswith(prefix) for k in self.seen.spans):
            return out
        for i in range(len(self.doc.sections)):
            spans = self.seen.spans.get(self.key(i))
            if spans:
                out[i] = None if self.whole(i) else [(a, b) for a, b, _ in spans]
        return out
