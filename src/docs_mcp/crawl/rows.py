"""The rows a page becomes in the site index, computed before any lock is taken (in the indexer's workers).

Tokenizing, embedding and compressing a large page takes ~200 ms of CPU; done here, the process that answers
searches only runs the SQL of a write.
"""

from __future__ import annotations

import json
import zlib

from docs_mcp.model.document import Document
from docs_mcp.search.semantic import active_model, encode_sections
from docs_mcp.store.pagerows import TOTAL, PreparedPage
from docs_mcp.text.terms import query_terms, tokenize


def prepare_page(
    key: str,
    doc: Document,
    listed: bool = True,
    links: list[str] | None = None,
    keywords: list[tuple[str, str, str]] | None = None,
) -> PreparedPage:
    """Tokenize and compress a page for `Store.write` (the CPU part of storing it: ~200 ms a large page)."""
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
        # Terms as their content words: "timeout during" is about timeouts, not "during".
        tuple((" ".join(query_terms(term)), target, anchor) for term, target, anchor in keywords or ()),
    )
