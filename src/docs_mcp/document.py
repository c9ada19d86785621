"""The converted page: immutable sections, with markdown rendered lazily per section and memoized."""

from __future__ import annotations

import html
import json
import re
import zlib
from dataclasses import dataclass, field

from .config import DEFINED_TERM_MAX_CHARS, SIGNATURE_PREFIXES
from .errors import InvalidArgument, SectionNotFound

SEPARATOR = "\n\n"
_WS = re.compile(r"\s+")
_DT = re.compile(r"<dt\b[^>]*>(.*?)</dt>", re.S)
_TAG = re.compile(r"<[^>]+>")
#: Where a signature's name ends: its parameters, subscript, type annotation or value.
_NAME_END = re.compile(r"[(\[]|:\s|\s=")


@dataclass(frozen=True)
class Section:
    """One heading and its own content (subsections excluded); level 0 is content before any heading."""

    id: str
    title: str
    level: int
    parent: str | None
    #: Own body as simplified HTML (HTML pages) ...
    body_html: str = ""
    #: ... or as Markdown (Markdown pages).
    body_md: str | None = None
    #: Own plain text, for scoring and snippets.
    text: str = ""

    @property
    def names(self) -> list[str]:
        """Names the section defines (definition-list terms: API signatures, options, glossary entries)."""
        # API references describe each function under a <dt>, not a heading; the index weighs these
        # names like headings, so `time.sleep` finds the time module's page.
        terms = (html.unescape(_TAG.sub("", m.group(1))) for m in _DT.finditer(self.body_html))
        return [name for term in terms if (name := defined_name(term))]


def defined_name(term: str) -> str:
    """The name a definition-list term defines, "" for a field label or prose: `time.sleep(secs)` → `time.sleep`."""
    term = term.strip()
    if not term or term.endswith(":"):  # "Parameters:" field labels
        return ""
    cut = _NAME_END.search(term)
    words = (term[: cut.start()] if cut else term).split()
    if (len(term) > DEFINED_TERM_MAX_CHARS and not cut) or not words:
        return ""  # a long term without a signature is prose, not a name
    if cut:  # "int PyObject_Str(PyObject *o)" -> "PyObject_Str"
        return words[-1]
    while len(words) > 1 and words[0] in SIGNATURE_PREFIXES:
        words = words[1:]
    # "exception pkg.Error" -> "pkg.Error"; "abstract base class" stays a glossary term.
    return words[0] if len(words) == 1 else " ".join(term.split())


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
    # Memo of derived data (rendered markdown, BM25 stats): not state. Plain dict writes are atomic under the
    # GIL and a race only converts a section twice, so no lock (which would also make Documents unpicklable).
    _memo: dict = field(default_factory=dict, compare=False, repr=False, hash=False)

    # --- markdown ------------------------------------------------------------------------------
    def own_markdown(self, i: int, include_code: bool = False) -> str:
        """Heading line plus the section's own body, children excluded."""
        key = (i, include_code)
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        from .markdown import heading_line, html_to_markdown, markdown_without_code  # bs4: on first use

        sec = self.sections[i]
        if sec.body_md is not None:
            body = sec.body_md if include_code else markdown_without_code(sec.body_md)
        else:
            body = html_to_markdown(sec.body_html, include_code)
        head = heading_line(sec.level, sec.title)
        text = f"{head}{SEPARATOR}{body}" if head and body else head or body
        self._memo[key] = text
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
            cached = []
            for i in range(len(self.sections)):
                lengths = [n for n in own[slice(*self.span(i))] if n]
                cached.append(sum(lengths) + len(SEPARATOR) * max(len(lengths) - 1, 0))
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
    def to_blob(self) -> bytes:
        """Compact bytes (zlib'd JSON) of everything but the memo; `from_blob` restores an equal Document."""
        payload = {
            "url": self.url,
            "source": self.source,
            "title": self.title,
            "fetched_at": self.fetched_at,
            "etag": self.etag,
            "last_modified": self.last_modified,
            "hash": self.content_hash,
            "sections": [
                [s.id, s.title, s.level, s.parent, s.body_html, s.body_md, s.text] for s in self.sections
            ],
        }
        return zlib.compress(json.dumps(payload, ensure_ascii=False).encode("utf-8"), 1)

    @classmethod
    def from_blob(cls, blob: bytes) -> Document:
        p = json.loads(zlib.decompress(blob))
        sections = tuple(Section(*row) for row in p["sections"])
        return cls(
            p["url"],
            p["source"],
            p["title"],
            sections,
            p["fetched_at"],
            p["etag"],
            p["last_modified"],
            p["hash"],
        )

    # --- lookup -------------------------------------------------------------------------------
    def find(self, section_id: str) -> int:
        """Index of a section by id, else by heading text (case- and space-insensitive)."""
        wanted = (section_id or "").strip().lstrip("#")
        if not wanted:
            raise InvalidArgument(
                "section_id is empty: pass an id from get_doc_toc or a search result's #fragment"
            )
        for i, s in enumerate(self.sections):
            if s.id == wanted:
                return i
        norm = _WS.sub(" ", wanted).strip().casefold()
        for i, s in enumerate(self.sections):
            if s.title.casefold() == norm:
                return i
        for i, s in enumerate(self.sections):
            if s.id.casefold() == norm:
                return i
        raise SectionNotFound(self._unknown(wanted))

    def _unknown(self, wanted: str) -> str:
        from .config import UNKNOWN_ID_LIST_CAP

        ids = [s.id for s in self.sections if s.level > 0]
        shown = ", ".join(ids[:UNKNOWN_ID_LIST_CAP])
        more = (
            f" … and {len(ids) - UNKNOWN_ID_LIST_CAP} more (get_doc_toc lists all)"
            if len(ids) > UNKNOWN_ID_LIST_CAP
            else ""
        )
        return f"no section {wanted!r} in {self.url}. Available ids: {shown}{more}"

    def path(self, i: int) -> list[str]:
        """Titles from the top-level heading down to section i."""
        by_id = {s.id: s for s in self.sections}
        out, sec = [], self.sections[i]
        while sec is not None:
            if sec.title:
                out.append(sec.title)
            sec = by_id.get(sec.parent) if sec.parent else None
        return out[::-1]

    def short_path(self, i: int) -> list[str]:
        """Heading path without a leading page title (it is shown once already)."""
        path = self.path(i)
        return path[1:] if len(path) > 1 and path[0] == self.title else path
