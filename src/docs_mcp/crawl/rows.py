"""The rows a page becomes in the site index, computed before any lock is taken (in the indexer's workers).

Tokenizing, embedding and compressing a large page takes ~200 ms of CPU; done here, the process that answers
searches only runs the SQL of a write.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

from docs_mcp.crawl.heap import TRIM_AFTER_CHARS, trim_heap
from docs_mcp.model.document import Document
from docs_mcp.search.in_page.ranking import entries_alone
from docs_mcp.search.semantic.signal import (
    ENTRY_VECTOR_MIN_CHARS,
    active_model,
    encode_texts,
    section_rows,
    section_text,
)
from docs_mcp.store.pagerows import PreparedPage, fts_rows, pack_terms
from docs_mcp.store.pagestream import pack_page
from docs_mcp.text.budget import last_sentence_start
from docs_mcp.text.terms import query_terms


def text_digest(doc: Document) -> str:
    """A digest of the page's title and text: one item re-exported under two paths (their HTML differs by
    its relative links) has one, like one page served at two addresses, so search shows it once."""
    text = "\0".join([doc.title, *(s.text for s in doc.sections)])
    return hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()


#: Shorter section texts get no digest: a "See also" or "Returns: None" recurs on unrelated pages.
DIGEST_MIN_CHARS = 40
#: A section's last sentence is left out of its second digest when it holds at most this share of the text.
TRIMMED_SHARE = 1 / 3


def _digest(words: str) -> str:
    return hashlib.sha1(words.encode("utf-8", "replace")).hexdigest()[:16]


def section_digest(text: str) -> str:
    """A section's content digest, its whitespace evened out ('' when too short to tell copies by): the same
    section in an all-in-one page, or in one item re-exported under two paths, has the same one."""
    return section_digests(text)[0]


def trimmed_digest(text: str) -> str:
    """The digest of a section's text without its last sentence, when that is short beside the rest ('' when
    not): a copy whose generator adds a line to every section (SQLite's C API pages end each function with
    "See also lists of Objects, Constants, and Functions.", its all-in-one page does not; texi2html's
    single page ends sections with "[Contents][Index]") still meets the section it copies."""
    return section_digests(text)[1]


def section_digests(text: str) -> tuple[str, str]:
    """A section's `section_digest` and `trimmed_digest`, its whitespace evened out once for both."""
    words = " ".join(text.split())
    if len(words) < DIGEST_MIN_CHARS:  # too short to tell copies by, and shorter still without a sentence
        return "", ""
    cut = last_sentence_start(words)
    rest = words[:cut].rstrip()
    if not cut or len(words) - cut > TRIMMED_SHARE * len(words) or len(rest) < DIGEST_MIN_CHARS:
        return _digest(words), ""
    return _digest(words), _digest(rest)


#: A page's sections' (title, path, text) and entries' (name, place, text): what its vectors are computed from.
VectorInput = tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]


def vector_input(doc: Document) -> VectorInput:
    """What a page's vectors are computed from (`encode_sections`): its sections' (title, path, text), then its
    entries'; for a page indexed now and for one whose vectors are filled in later alike."""
    return section_rows(doc), entry_rows(doc)


#: The texts a page's vectors are embedded from (`section_text`'s: sections' first, then entries'), and how many
#: are sections': made where the page is parsed, embedded where the model is (`add_vectors`).
VectorTexts = tuple[list[str], int]


def vector_texts(doc: Document) -> VectorTexts:
    """The texts a page's vectors are embedded from (what `encode_sections` embeds), and its sections' count."""
    rows, entries = vector_input(doc)
    return [section_text(*r) for r in [*rows, *entries]], len(rows)


def add_vectors(page: PreparedPage, texts: VectorTexts, model: str) -> PreparedPage:
    """The page with its section vectors, embedded from `vector_texts` by `model`."""
    vectors = encode_texts(*texts, model)
    if sum(map(len, texts[0])) >= TRIM_AFTER_CHARS:  # its encodings are freed now: hand their memory back
        trim_heap()
    return replace(page, vector_model=model if vectors else "", vectors=vectors)


def entry_rows(doc: Document) -> list[tuple[str, str, str]]:
    """(name, place, text) of the entries ranked on their own and long enough to be embedded, after the page's
    sections: an option or pragma in a 70,000-char list is near a question that its section's vector (the
    list's start) is not."""
    return [
        (e.name, " > ".join(doc.path(i)), text)
        for i, s in enumerate(doc.sections)
        for _, e, text in entries_alone(s)
        if len(text) >= ENTRY_VECTOR_MIN_CHARS
    ]


def prepare_page(
    key: str,
    doc: Document,
    listed: bool = True,
    links: list[str] | None = None,
    keywords: list[tuple[str, str, str]] | None = None,
    embed: bool = True,
    link_words: tuple[tuple[str, str], ...] = (),
) -> PreparedPage:
    """Tokenize and compress a page for `Store.write` (the CPU part of storing it: ~200 ms a large page); its
    section vectors too, unless `embed` is off (they are then added by `add_vectors`)."""
    rows = []
    for i, (s, place) in enumerate(zip(doc.sections, doc.places(), strict=True)):
        rows.append((i, s.id, s.level, s.title, place, s.text, "\n".join(s.names)))
    page_fts, fts, df = ("", "", "", ""), (), {}
    if listed:
        page_fts, fts, df = fts_rows(doc.title, [(r[3], r[4], r[5], r[6]) for r in rows])
    digests = [section_digests(r[5]) for r in rows] if listed else []
    model = active_model() if listed and embed else None
    vectors = encode_texts(*vector_texts(doc), model) if model else b""
    return PreparedPage(
        key,
        doc.title,
        doc.fetched_at,
        doc.etag,
        doc.last_modified,
        text_digest(doc),
        listed,
        page_fts,
        tuple((*r[:5], r[6]) for r in rows),
        pack_page(
            [r[4] for r in rows], [r[5] for r in rows], links or (), doc.to_json(texts=False, fetch=False)
        ),
        fts,
        pack_terms(df),
        model if vectors else "",
        vectors,
        # Terms as their content words: "timeout during" is about timeouts, not "during".
        tuple((" ".join(query_terms(term)), target, anchor) for term, target, anchor in keywords or ()),
        tuple(d for d, _ in digests),
        link_words,
        tuple(t for _, t in digests),
    )
