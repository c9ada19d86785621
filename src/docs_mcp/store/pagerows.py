"""The rows a page becomes in the site index, as the store takes them (computed by crawl.rows in the workers)."""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass

#: The vocab row counting listed sections (no token is empty).
TOTAL = ""


@dataclass(frozen=True)
class PreparedPage:
    """A page's rows, computed before any lock is taken (in the indexer's worker processes)."""

    key: str
    title: str
    fetched_at: float
    etag: str
    last_modified: str
    hash: str
    listed: bool
    links: str
    doc: bytes
    #: pages_fts row: title, headings, body, names as indexed tokens (empty for an unlisted page).
    page_fts: tuple[str, str, str, str]
    #: sections rows: ord, anchor, level, title, path, text, names.
    sections: tuple[tuple[int, str, int, str, str, str, str], ...]
    #: sections_fts rows, one per section (none for an unlisted page).
    section_fts: tuple[tuple[str, str, str, str], ...]
    #: zlib'd JSON {term: sections holding it}: what this page adds to the vocabulary, and takes back.
    terms: bytes
    #: The `semantic` extra: the model and its float16 vectors of the sections, in order ("", b"" without).
    vector_model: str = ""
    vectors: bytes = b""
    #: A keyword index page's entries: (term as indexed tokens, target page key, anchor); none elsewhere.
    keywords: tuple[tuple[str, str, str], ...] = ()

    @property
    def row(self) -> tuple[str, str, float, str, str, str, int]:
        """The `pages` row: key, title, fetched_at, etag, last_modified, hash, listed."""
        return (
            self.key,
            self.title,
            self.fetched_at,
            self.etag,
            self.last_modified,
            self.hash,
            int(self.listed),
        )


def term_counts(terms: bytes | None) -> dict[str, int]:
    """A page's {term: sections holding it} (empty for an unlisted page)."""
    return json.loads(zlib.decompress(terms)) if terms else {}
