"""What one MCP session was shown, per section of a page: the spans of its markdown and the call that sent
each (tools/session.py keeps it between calls); and one page's view of it for the tools that answer."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from itertools import pairwise

from docs_mcp.model.document import Document

#: Sessions remembered (least recently used forgotten first), idle seconds before one is forgotten, sections
#: and spans per section remembered (oldest dropped first): a session's memory stays under ~100 KB.
SESSION_MAX, SESSION_TTL, SESSION_SECTIONS, SESSION_SPANS = 1000, 1800.0, 2000, 64
#: Shown: this share of a passage sent before. search_in_doc looks at SESSION_EXTRA more sections when the best
#: were sent; get_doc_section makes a pointer of a run sent before from SESSION_ELIDE_MIN chars.
SESSION_COVERED, SESSION_EXTRA, SESSION_ELIDE_MIN = 0.9, 4, 200
#: --session-budget: under this many chars left, answers are outlines and pointers only.
SESSION_BUDGET_FLOOR = 300


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
        mine = [s for s in spans if s[2] == self.calls and s[0] <= end and start <= s[1]]
        rest = [s for s in spans if s not in mine]  # spans of other calls stay theirs: pointers name the call
        merged = [min([start, *(s[0] for s in mine)]), max([end, *(s[1] for s in mine)]), self.calls]
        self.spans[key] = sorted([*rest, merged])[-SESSION_SPANS:]
        while len(self.spans) > SESSION_SECTIONS:
            del self.spans[next(iter(self.spans))]

    def covered(self, key: str, start: int, end: int) -> int | None:
        """The call that showed most of [start, end), if the calls together showed SESSION_COVERED of it."""
        runs = self.shown_in(key, start, end)
        shown = sum(b - a for a, b, _ in runs)
        if end <= start or shown < SESSION_COVERED * (end - start):
            return None
        share: dict[int, int] = {}
        for a, b, call in runs:
            share[call] = share.get(call, 0) + b - a
        return max(share, key=lambda call: (share[call], -call))

    def shown_in(self, key: str, start: int, end: int) -> list[Span]:
        """The runs of [start, end) shown, disjoint and in order, each with the call that showed it first."""
        cuts = sorted(
            {start, end, *(x for a, b, _ in self.spans.get(key, ()) for x in (a, b) if start < x < end)}
        )
        runs: list[Span] = []
        for a, b in pairwise(cuts):
            calls = [c for x, y, c in self.spans.get(key, ()) if x <= a and b <= y]
            if not calls:
                continue
            if runs and runs[-1][1] == a and runs[-1][2] == min(calls):
                runs[-1][1] = b
            else:
                runs.append([a, b, min(calls)])
        return runs

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
