"""The rows a page becomes in the site index, computed before any lock is taken (in the indexer's workers).

Tokenizing and compressing a large page takes ~200 ms of CPU; done here, the process that answers searches
only runs the SQL of a write.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass

from .analysis import tokenize
from .document import Document
from .semantic import active_model, encode_sections

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


def prepare_page(
    key: str, doc: Document, listed: bool = True, links: list[str] | None = None
) -> PreparedPage:
    """Tokenize and compress a page for `SiteIndex.write` (the CPU part of storing it: ~200 ms a large page)."""
    rows, fts = [], []
    df: dict[str, int] = {}
    for i, s in enumerate(doc.sections):
        path = " > ".join(doc.path(i)[:-1]) or doc.title
        names = "\n".join(s.names)
        rows.append((i, s.id, s.level, s.title, path, s.text, names))
        if listed:
            cols = [tokenize(s.title), tokenize(path), tokenize(s.text), tokenize(names)]
            fts.append(tuple(" ".join(c) for c in cols))
            for term in set().union(*cols):
                df[term] = df.get(term, 0) + 1
    page_fts = ("", "", "", "")
    if listed:
        # A page's columns are its sections' columns joined: each text is tokenized once.
        page_fts = (
            " ".join(tokenize(doc.title)),
            " ".join(f[0] for f in fts),
            " ".join(f[2] for f in fts),
            " ".join(f[3] for f in fts),
        )
        df[TOTAL] = len(rows)
    model = active_model() if listed else None
    vectors = encode_sections([r[3:6] for r in rows], model) if model else b""
    return PreparedPage(
        key,
        doc.title,
        doc.fetched_at,
        doc.etag,
        doc.last_modified,
        doc.content_hash,
        listed,
        "\n".join(links or ()),
        doc.to_blob(),
        page_fts,
        tuple(rows),
        tuple(fts),
        zlib.compress(json.dumps(df, ensure_ascii=False).encode("utf-8"), 1),
        model if vectors else "",
        vectors,
    )


def term_counts(terms: bytes | None) -> dict[str, int]:
    """A page's {term: sections holding it} (empty for an unlisted page)."""
    return json.loads(zlib.decompress(terms)) if terms else {}
