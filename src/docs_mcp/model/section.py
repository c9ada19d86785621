"""The parts of a converted page: sections, the definitions inside them, and references to either."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from docs_mcp.text.controls import escaped

#: Between the markdown of two parts of a page (a heading and its body, two sections).
SEPARATOR = "\n\n"


def joined_size(lengths: Iterable[int]) -> int:
    """len(SEPARATOR.join(p for p in parts if p)) from the parts' lengths alone, without joining them."""
    kept = [n for n in lengths if n]
    return sum(kept) + len(SEPARATOR) * max(len(kept) - 1, 0)


def as_data(obj: object, *names: str) -> None:
    """Escape the shown fields of a frozen dataclass in place (see text.controls): ids and titles come from
    the page and are data, never a line of their own or a terminal's command."""
    for name in names:
        value = getattr(obj, name)
        if isinstance(value, tuple):
            object.__setattr__(obj, name, tuple(escaped(v) for v in value))
        elif isinstance(value, str):
            object.__setattr__(obj, name, escaped(value))


@dataclass(frozen=True)
class Entry:
    """One definition (`re.sub`, `TEMPORARY or TEMP`, `shared_buffers`) inside a section's own content."""

    id: str
    name: str
    #: Index (in the section's entries) of the definition this one is nested in, -1 if none.
    parent: int = -1
    #: Every id that resolves to this entry, `id` first.
    anchors: tuple[str, ...] = ()
    #: Where the entry's words lie in its section's `text` (start, end): it is ranked on its own. None when
    #: unknown (a page stored before spans were kept).
    text_span: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        as_data(self, "id", "name", "anchors")


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
    #: Own plain text, for search and snippets (code blocks left out by default are not in it).
    text: str = ""
    #: Every id that resolves to this section, `id` first (Django's `select-related` and `s-select-related`).
    anchors: tuple[str, ...] = ()
    #: Definition entries in the section's own content, in document order (nested ones after their parent).
    entries: tuple[Entry, ...] = ()
    #: Names the section defines: every definition-list term's (API signatures, options, glossary entries),
    #: entries or not. API references describe each function under a <dt>, not a heading; the index weighs
    #: these names like headings, so `time.sleep` finds the time module's page.
    names: tuple[str, ...] = ()
    #: Words of its code blocks that the default markdown leaves out: matches there do not count, but they
    #: still make the section long (BM25's length normalization sees the section as it is).
    code_words: int = 0

    def __post_init__(self) -> None:
        as_data(self, "id", "title", "parent", "anchors")


#: A section's own markdown (heading line, SEPARATOR, body) and where each of its entries lies in it.
Renderer = Callable[[Section, bool], tuple[str, list[tuple[int, int] | None]]]


@dataclass(frozen=True)
class Ref:
    """A unit of a page: section `section`, or definition `entry` inside it; `note` says how a name matched."""

    section: int
    entry: int = -1
    note: str = ""
