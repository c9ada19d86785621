"""The store's contract: what search, crawl and the tools read and write, whatever engine holds the index.

`SiteIndex` (SQLite, one file per cache folder) implements it; another engine implements the same two
protocols. Reads return plain data: tuples of ids, keys, texts and scores, never a cursor or a row object.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Protocol

if TYPE_CHECKING:
    from docs_mcp.fetch.sources import Source
    from docs_mcp.model.document import Document
    from docs_mcp.store.pagerows import PreparedPage

#: The meta key of the index's generation: new in every write transaction (search/site/results.py keys hits by it).
GENERATION_META = "generation"
#: A section content held by more pages than this is boilerplate (a footer, "Methods inherited from Object"):
#: no page copies another by holding it.
COPIES_CAP = 20


@dataclass(frozen=True)
class PageState:
    """What a refresh needs to know about an indexed page."""

    key: str
    fetched_at: float
    etag: str
    last_modified: str


@dataclass(frozen=True)
class Scope:
    """The pages a server may show: those whose key lies under one of its sources' roots."""

    prefixes: tuple[str, ...]

    @classmethod
    def of(cls, sources: Iterable[Source]) -> Scope:
        return cls(tuple(key_prefix(s) for s in sources))


def key_prefix(source: Source) -> str:
    """What the key of every page of a source starts with: its root URL, or its folder and a separator."""
    return source.root if not source.is_local else source.root.rstrip(os.sep) + os.sep


class PageRow(NamedTuple):
    """A page as ranking and hits need it."""

    id: int
    key: str
    title: str
    fetched_at: float
    #: The content hash ("" when unknown): one page served at two addresses has one hash.
    hash: str


class SectionRow(NamedTuple):
    """A section as a hit shows it."""

    id: int
    page_id: int
    anchor: str
    title: str
    #: Its headings above it, " > " between them.
    path: str
    text: str
    #: The names it defines (API signatures, options), one a line; "" where not read.
    names: str = ""


class PageReads(Protocol):
    """Pages and builds: what both a snapshot (`Reads`) and the store itself (`Store`) answer."""

    def meta(self, key: str) -> str | None: ...
    def page_count(self, scope: Scope | None = None) -> int: ...
    def section_count(self) -> int: ...
    def newest(self, scope: Scope) -> float: ...
    def older_than(self, scope: Scope, when: float) -> int: ...
    def pages(self, scope: Scope) -> list[PageState]: ...
    def links(self, key: str) -> list[str]: ...
    def load_document(self, key: str) -> Document | None: ...
    def headings(self, key: str) -> list[tuple[int, str, str]]: ...
    def without_vectors(
        self, model: str, scope: Scope, limit: int, after: int = 0
    ) -> list[tuple[int, str]]: ...


class Reads(PageReads, Protocol):
    """Reads of one consistent snapshot of the index (`Store.reading()`): page ids are never reused (a rewritten
    page gets a new id), so callers may memoize per id."""

    # --- ranking: a full-text match scores BM25 over the title, path (headings), body and names columns,
    # weighted by settings.SECTION_WEIGHTS (PAGE_WEIGHTS for pages); higher is better, best first ---
    def doc_freq(self, terms: Sequence[str], scope: Scope) -> tuple[dict[str, int], int]:
        """The scope's listed sections holding each term (terms in none left out), and its number of listed sections."""
        ...

    def section_matches(self, terms: Sequence[str], scope: Scope, limit: int) -> list[tuple[int, int, float]]:
        """(page id, section id, score) of the best sections of the scope holding any of the terms."""
        ...

    def page_matches(self, terms: Sequence[str], scope: Scope, limit: int) -> list[tuple[int, float]]:
        """(page id, score) of the best pages of the scope holding any of the terms."""
        ...

    def name_matches(self, phrases: Sequence[str], scope: Scope, limit: int) -> list[tuple[int, int, str]]:
        """(page id, section id, names) of sections whose names column holds a phrase (tokens, space-separated)."""
        ...

    def keyword_matches(
        self, terms: Sequence[str], scope: Scope, limit: int
    ) -> list[tuple[int, str, str, float]]:
        """(target page id, anchor, term, score) of the site's keyword-index entries whose term holds any of the
        terms and whose target is a listed page of the scope, best first; the term as its tokens, space-separated."""
        ...

    def inbound_terms(self, page_ids: Sequence[int], terms: Sequence[str]) -> list[tuple[int, str]]:
        """(page id, term) for each of these terms that links from other pages of the site to each of these
        pages say (their texts' words); an index written before schema 12 (SQLite) / 10 (PostgreSQL) has none."""
        ...

    def links_from(self, page_ids: Sequence[int]) -> dict[int, dict[str, frozenset[str]]]:
        """Per page of these: the pages of its site its links point at (keys), each with the terms those links
        say (search/site/pointers.py); a page with no such link is left out."""
        ...

    def best_section(self, page_id: int, terms: Sequence[str], scope: Scope) -> int | None:
        """The page's best section holding any of the terms, by the scope's statistics."""
        ...

    def pages_holding(self, term: str, page_ids: Sequence[int]) -> list[int]:
        """Those of these pages whose full text (any column) holds the term."""
        ...

    def titled_pages(self, fragment: str, scope: Scope, limit: int) -> list[tuple[int, str]]:
        """(page id, title) of listed pages of the scope whose title holds the fragment as written."""
        ...

    def page_rows(self, page_ids: Iterable[int]) -> list[PageRow]: ...
    def page_titles(self, keys: Sequence[str]) -> list[tuple[str, str]]:
        """(key, title) of those of these pages that are indexed."""
        ...

    def section_rows(self, section_ids: Iterable[int]) -> list[SectionRow]: ...
    def section_ids_at(self, places: Sequence[tuple[int, int]]) -> dict[tuple[int, int], int]:
        """The ids of the sections at these places (page id, ord); places with no section are left out."""
        ...

    def following_sections(self, section_ids: Iterable[int], count: int) -> list[SectionRow]:
        """Up to `count` sections after each of these on its page, by page then page order."""
        ...

    # --- copies (search/site/copies.py); `near`: a section's digest without its last sentence counts too ---
    #: Per listed page: its number of sections, of sections with a content digest, and of their words.
    def page_shapes(self, page_ids: Sequence[int]) -> dict[int, tuple[int, int, int]]: ...
    def section_copies(
        self, section_ids: Sequence[int], scope: Scope, near: bool = True
    ) -> list[tuple[int, int, int]]:
        """(section id, other page id, its section id) for each listed page of the scope holding a section with the
        same content digest as one of these; a digest on more than COPIES_CAP of the scope's pages is boilerplate."""
        ...

    #: Per section with no digest (a heading, its text under it): the first digested section under it.
    def digested_below(self, section_ids: Sequence[int]) -> dict[int, int]: ...
    def shared_digests(
        self, page_id: int, scope: Scope, other: int | None = None, most: int | None = None, near: bool = True
    ) -> int:
        """How many of one page's digested sections another listed page of the scope holds too: the page `other`,
        or any (None); when `most` is given, only pages with at most that many digests count."""
        ...

    def vectors(self, model: str, page_ids: Sequence[int]) -> list[tuple[int, bytes]]:
        """The semantic model's stored section vectors (float16, concatenated) of these pages, where stored."""
        ...

    def vector_pages(self, model: str, scope: Scope) -> list[int]:
        """Ids of the listed pages of the scope that have stored vectors of `model`, ascending."""
        ...

    # --- the findability audit (audit/) ---
    def listed_pages(self, scope: Scope) -> list[tuple[str, str]]:
        """(key, title) of the listed pages of the scope (those search may return), by key."""
        ...

    def inbound_words(self, key: str, limit: int) -> list[str]:
        """The words the site's links to this page say most often (by linking pages, then the word), best first."""
        ...


class BuildLock(Protocol):
    """Held by one build of one root at a time, across processes; dropped if its process dies."""

    def try_acquire(self) -> bool: ...
    def holder(self) -> str: ...
    def held(self) -> bool:
        """Still held (taken again if it was lost and is free); False: another build has it now."""
        ...

    def release(self) -> None: ...


class Store(PageReads, Protocol):
    """The index as search, crawl and the tools use it: snapshots to read, one transaction per write."""

    #: Where the index lives, for messages (a file path; a database address without its password).
    location: str

    def reading(self) -> AbstractContextManager[Reads]: ...

    # The PageReads outside a `reading()` block run each in a snapshot of its own (inside one: that block's).

    # --- writes, each one transaction ---
    def write(self, page: PreparedPage) -> None: ...
    def write_many(self, pages: Sequence[PreparedPage]) -> None:
        """The pages in one transaction, all or none (a build writes what its workers finished meanwhile)."""
        ...

    def remove(self, key: str) -> None: ...
    def touch(self, key: str, fetched_at: float | None = None) -> None: ...
    def set_meta(self, key: str, value: str) -> None: ...
    def put_vectors(self, model: str, rows: list[tuple[int, bytes]]) -> int: ...

    def build_lock(self, root: str) -> BuildLock: ...
    def close(self) -> None: ...

    # --- the sources it holds (`docslice sources`, `docslice remove`) ---
    def metas(self, prefix: str) -> list[tuple[str, str]]: ...
    def footprint(self, scope: Scope) -> int: ...
    def forget(self, meta_key: str, keys: Sequence[str]) -> int: ...
