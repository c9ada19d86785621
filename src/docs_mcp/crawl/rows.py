"""The rows a page becomes in the site index, computed before any lock is taken (in the indexer's workers).

Tokenizing, embedding and compressing a large page takes ~200 ms of CPU; done here, the process that answers
searches only runs the SQL of a write.
"""

from __future__ import annotations

import hashlib

from docs_mcp.model.document import Document
from docs_mcp.search.semantic import active_model, encode_sections
from docs_mcp.store.pagerows import (
    ZLIB_LEVEL,
    PreparedPage,
    fts_rows,
    pack_links,
    pack_terms,
    pack_text,
)
from docs_mcp.text.terms import query_terms


def text_digest(doc: Document) -> str:
    """A digest of the page's title and text: one item re-exported under two paths (their HTML differs by
    its relative links) has one, like one page served at two addresses, so search shows it once."""
    text = "\0".join([doc.title, *(s.text for s in doc.sections)])
    return hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()


def prepare_page(
    key: str,
    doc: Document,
    listed: bool = True,
    links: list[str] | None = None,
    keywords: list[tuple[str, str, str]] | None = None,
) -> PreparedPage:
    """Tokenize and compress a page for `Store.write` (the CPU part of storing it: ~200 ms a large page)."""
    rows = []
    for i, s in enumerate(doc.sections):
        path = " > ".join(doc.path(i)[:-1]) or doc.title
        rows.append((i, s.id, s.level, s.title, path, s.text, "\n".join(s.names)))
    page_fts, fts, df = ("", "", "", ""), (), {}
    if listed:
        page_fts, fts, df = fts_rows(doc.title, [(r[3], r[4], r[5], r[6]) for r in rows])
    model = active_model() if listed else None
    vectors = encode_sections([r[3:6] for r in rows], model) if model else b""
    stored = tuple((*r[:5], pack_text(r[5]), r[6]) for r in rows)
    return PreparedPage(
        key,
        doc.title,
        doc.fetched_at,
        doc.etag,
        doc.last_modified,
        text_digest(doc),
        listed,
        pack_links(links or ()),
        doc.to_blob(texts=False, level=ZLIB_LEVEL),
        page_fts,
        stored,
        fts,
        pack_terms(df),
        model if vectors else "",
        vectors,
        # Terms as their content words: "timeout during" is about timeouts, not "during".
        tuple((" ".join(query_terms(term)), target, anchor) for term, target, anchor in keywords or ()),
    )
