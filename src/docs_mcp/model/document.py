"""The converted page: immutable sections, with markdown rendered lazily per section and memoized."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from docs_mcp.errors import InvalidArgument, SectionNotFound
from docs_mcp.model.paths import heading_paths
from docs_mcp.model.section import SEPARATOR, Entry, Ref, Renderer, Section, as_data, joined_size
from docs_mcp.settings import UNKNOWN_ID_LIST_CAP
from docs_mcp.text.tidy import clip, fold_space

#: Characters of ids listed when a section id is unknown (a page of 20,000 headings must not flood the error).
_UNKNOWN_LIST_CHARS = 1_500
FETCH_FIELDS = ("fetched_at", "etag", "last_modified")  # a fetch's, not the content's: page rows hold them
#: (key in the stored JSON, Document field) of the page's own fields.
_STORED_FIELDS = (*((f, f) for f in ("url", "source", "title", *FETCH_FIELDS)), ("hash", "content_hash"))


def _span(stored: list) -> tuple[int, int] | None:
    """A stored entry's text span (pages stored before spans were kept have none)."""
    return (stored[4][0], stored[4][1]) if len(stored) > 4 and stored[4] else None


@dataclass(frozen=True)
class Document:
    """A page after the whole pipeline; every tool is a view over one of these."""

    url: str  # as shown to the agent
    source: str
    title: str
    sections: tuple[Section, ...]
    fetched_at: float = 0.0
    etag: str = ""
    last_modified: str = ""
    content_hash: str = ""
    #: Turns a section into its own markdown; the convert stage supplies it, so the model needs no converter.
    render: Renderer | None = field(default=None, compare=False, repr=False)
    # Memo of derived data (rendered markdown, BM25 stats): not state. Plain dict writes are atomic under the
    # GIL and a race only converts a section twice, so no lock (which would also make Documents unpicklable).
    _memo: dict = field(default_factory=dict, compare=False, repr=False, hash=False)

    def __post_init__(self) -> None:
        as_data(self, "title")

    # --- markdown ------------------------------------------------------------------------------
    def own_markdown(self, i: int, include_code: bool = False) -> str:
        """Heading line plus the section's own body, children excluded."""
        key = (i, include_code)
        cached = self._memo.get(key)
        if cached is None:
            cached = self._convert(i, include_code)
        return cached

    def entry_spans(self, i: int, include_code: bool = False) -> list[tuple[int, int] | None]:
        """Where each definition entry of section i lies in its own markdown (None if conversion lost it)."""
        key = ("spans", i, include_code)
        if key not in self._memo:
            self._convert(i, include_code)
        return self._memo[key]

    def _convert(self, i: int, include_code: bool) -> str:
        if self.render is None:
            raise TypeError(
                "a Document needs a renderer for markdown: pass render=convert.markdown.render_section"
            )
        text, spans = self.render(self.sections[i], include_code)
        self._memo[("spans", i, include_code)] = spans
        self._memo[(i, include_code)] = text
        return text

    def span(self, i: int) -> tuple[int, int]:
        """Index range of section i and its descendants (they follow it contiguously)."""
        level = self.sections[i].level
        j = i + 1
        while j < len(self.sections) and self.sections[j].level > level:
            j += 1
        if level == 0:  # the preamble has no descendants
            j = i + 1
        return i, j

    def join(self, start: int, stop: int, include_code: bool = False) -> str:
        parts = (self.own_markdown(k, include_code) for k in range(start, stop))
        return SEPARATOR.join(p for p in parts if p)

    def section_markdown(self, i: int, include_code: bool = False) -> str:
        """Section i with its subsections: an exact slice of the page markdown."""
        return self.join(*self.span(i), include_code=include_code)

    def section_sizes(self, include_code: bool = False) -> list[int]:
        """len(section_markdown(i)) for every section, derived from the own parts in O(n) (the TOC shows them)."""
        key = ("sizes", include_code)
        cached = self._memo.get(key)
        if cached is None:
            own = [len(self.own_markdown(k, include_code)) for k in range(len(self.sections))]
            cached = [joined_size(own[slice(*self.span(i))]) for i in range(len(self.sections))]
            self._memo[key] = cached
        return cached

    def markdown(self, include_code: bool = False) -> str:
        key = ("page", include_code)
        cached = self._memo.get(key)
        if cached is None:
            cached = self.join(0, len(self.sections), include_code)
            self._memo[key] = cached
        return cached

    # --- persistence (the site index stores converted pages) ------------------------------------------
    def to_json(self, texts: bool = True, fetch: bool = True) -> bytes:
        """JSON of all but the memo (`texts`, `fetch` False: nor sections' texts, FETCH_FIELDS); the index zlibs it."""
        payload = {k: getattr(self, name) for k, name in _STORED_FIELDS if fetch or k not in FETCH_FIELDS}
        payload["sections"] = [
            [
                s.id,
                s.title,
                s.level,
                s.parent,
                s.body_html,
                s.body_md,
                s.text if texts else "",
                list(s.anchors),
                [[e.id, e.name, e.parent, list(e.anchors), e.text_span] for e in s.entries],
                list(s.names),
                s.code_words,
            ]
            for s in self.sections
        ]
        return json.dumps(payload, ensure_ascii=False).encode("utf-8")

    @classmethod
    def from_json(
        cls, raw: bytes, render: Renderer | None = None, texts: Sequence[str] | None = None, fetch=None
    ) -> Document:
        """The Document `to_json` wrote; `texts`, `fetch`: its sections' texts, FETCH_FIELDS' values (a page row)."""
        p = json.loads(raw) | dict(zip(FETCH_FIELDS, fetch or (), strict=False))
        texts = [row[6] for row in p["sections"]] if texts is None else texts
        sections = tuple(
            Section(
                *row[:6],
                text,
                anchors=tuple(row[7]),
                entries=tuple(Entry(e[0], e[1], e[2], tuple(e[3]), _span(e)) for e in row[8]),
                names=tuple(row[9]),
                code_words=row[10],
            )
            for row, text in zip(p["sections"], texts, strict=True)
        )
        return cls(**{name: p[key] for key, name in _STORED_FIELDS}, sections=sections, render=render)

    # --- lookup -------------------------------------------------------------------------------
    def _ids(self) -> tuple[dict[str, Ref], dict[str, Ref]]:
        """Every anchor → its unit, as written and casefolded (PostgreSQL writes `GUC-SHARED-BUFFERS`)."""
        cached = self._memo.get("ids")
        if cached is None:
            exact: dict[str, Ref] = {}
            for i, s in enumerate(self.sections):
                for a in (s.id, *s.anchors):
                    exact.setdefault(a, Ref(i))
                for k, e in enumerate(s.entries):
                    for a in (e.id, *e.anchors):
                        exact.setdefault(a, Ref(i, k))
            folded: dict[str, Ref] = {}
            for a, ref in exact.items():
                folded.setdefault(a.casefold(), ref)
            cached = self._memo["ids"] = (exact, folded)
        return cached

    def find(self, section_id: str) -> Ref:
        """The unit an id names (any anchor in it), else the one whose heading or definition name it is.

        An exact id always wins over text. A heading text shared by several units picks the first, and the
        returned note names the others. Leading `#`s (ids are printed after one) go one at a time: `##():Int`.
        """
        wanted = (section_id or "").strip()
        exact, folded = self._ids()
        while wanted.startswith("#") and wanted not in exact:
            wanted = wanted[1:]
        if not wanted:
            raise InvalidArgument(
                "section_id is empty: pass an id from get_doc_toc or a search result's #fragment"
            )
        ref = exact.get(wanted) or folded.get(wanted.casefold())
        if ref is not None:
            return ref
        norm = fold_space(wanted).casefold()
        bare = norm.removesuffix("()")
        matches = [
            Ref(i)
            for i, s in enumerate(self.sections)
            if s.level and s.title.casefold().removesuffix("()") in (norm, bare)
        ]
        matches += [
            Ref(i, k)
            for i, s in enumerate(self.sections)
            for k, e in enumerate(s.entries)
            if e.name.casefold().removesuffix("()") in (norm, bare)
            or e.name.casefold().rsplit(".", 1)[-1].removesuffix("()") == bare
        ]
        if not matches:
            raise SectionNotFound(self._unknown(wanted))
        if len(matches) == 1:
            return matches[0]
        others = ", ".join(f"#{self.unit_id(m)} ({' > '.join(self.unit_path(m))})" for m in matches[1:6])
        more = f" and {len(matches) - 6} more" if len(matches) > 6 else ""
        note = f"{wanted!r} is the heading of {len(matches)} units; showing the first. Others: {others}{more}"
        return Ref(matches[0].section, matches[0].entry, note)

    def _unknown(self, wanted: str) -> str:
        ids = [s.id for s in self.sections if s.level > 0]
        shown: list[str] = []
        size = 0
        for i in ids[:UNKNOWN_ID_LIST_CAP]:
            if size + len(i) > _UNKNOWN_LIST_CHARS:
                break
            shown.append(i)
            size += len(i) + 2
        more = f" … and {len(ids) - len(shown)} more (get_doc_toc lists all)" if len(ids) > len(shown) else ""
        return f"no section {clip(wanted, 100)!r} in {self.url}. Available ids: {', '.join(shown)}{more}"

    # --- units ----------------------------------------------------------------------------------
    def units(self) -> list[Ref]:
        """Every section and definition entry, in document order."""
        out = []
        for i, s in enumerate(self.sections):
            out.append(Ref(i))
            out.extend(Ref(i, k) for k in range(len(s.entries)))
        return out

    def unit_id(self, ref: Ref) -> str:
        s = self.sections[ref.section]
        return s.entries[ref.entry].id if ref.entry >= 0 else s.id

    def unit_title(self, ref: Ref) -> str:
        s = self.sections[ref.section]
        return s.entries[ref.entry].name if ref.entry >= 0 else s.title

    def unit_path(self, ref: Ref) -> list[str]:
        """Heading path of the unit, down through the definitions it is nested in."""
        path = self.path(ref.section)
        names = []
        entries = self.sections[ref.section].entries
        k = ref.entry
        while k >= 0:
            names.append(entries[k].name)
            k = entries[k].parent
        return path + names[::-1]

    def unit_span(self, ref: Ref, include_code: bool = False) -> tuple[int, int] | None:
        """An entry's place in its section's own markdown; None for a section (or an entry conversion lost)."""
        if ref.entry < 0:
            return None
        return self.entry_spans(ref.section, include_code)[ref.entry]

    def unit_markdown(self, ref: Ref, include_code: bool = False) -> str:
        """A section with its subsections, or one definition with the definitions nested in it."""
        span = self.unit_span(ref, include_code)
        if span is None:
            return self.section_markdown(ref.section, include_code)
        return self.own_markdown(ref.section, include_code)[span[0] : span[1]]

    def unit_offset(self, ref: Ref, include_code: bool = False) -> int:
        """Where the unit starts in the page's markdown."""
        key = ("offsets", include_code)
        starts = self._memo.get(key)
        if starts is None:
            starts, pos = [], 0
            for k in range(len(self.sections)):
                starts.append(pos)
                own = self.own_markdown(k, include_code)
                if own:
                    pos += len(own) + len(SEPARATOR)
            self._memo[key] = starts
        span = self.unit_span(ref, include_code)
        return starts[ref.section] + (span[0] if span else 0)

    def path(self, i: int) -> list[str]:
        """Titles from the top-level heading down to section i."""
        return list(self._paths()[i])

    def places(self) -> list[str]:
        """Where each section sits, for its vector: its ancestors' titles (`A > B`), or the page's title."""
        return [" > ".join(p[:-1]) or self.title for p in self._paths()]

    def _paths(self) -> list[tuple[str, ...]]:
        cached = self._memo.get(("paths",))
        if cached is None:
            cached = self._memo[("paths",)] = heading_paths(self.sections)
        return cached

    def short_path(self, i: int) -> list[str]:
        """Heading path without a leading page title (it is shown once already)."""
        path = self.path(i)
        return path[1:] if len(path) > 1 and path[0] == self.title else path
