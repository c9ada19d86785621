"""The PostgreSQL store reads our tokens as SQLite FTS5's unicode61 tokenizer does (so both rank alike):
checked against SQLite itself, on every lowercase letter below U+3400 and from U+A000 to U+FFFF."""

from __future__ import annotations

import re
import sqlite3

from docs_mcp.store.postgres.postings import bundle_rows, decode, page_terms
from docs_mcp.store.postgres.text import column_counts, fold, query, tsvector

_WORD = re.compile(r"[^\W_]+")
#: Letters whose folding changed between the Unicode versions of SQLite's tables and Python's.
_UNICODE_VERSION_GAPS = 25


def fts5_tokens(texts: list[str]) -> list[list[str]]:
    """What FTS5 (unicode61, remove_diacritics 1) makes of each text, in order."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='unicode61')")
    db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    db.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)", list(enumerate(texts, 1)))
    out: list[list[tuple[int, str]]] = [[] for _ in texts]
    for term, doc, offset in db.execute("SELECT term, doc, offset FROM v"):
        out[doc - 1].append((offset, term))
    return [[t for _, t in sorted(row)] for row in out]


def test_words_with_apostrophes_and_diacritics_split_and_fold_as_fts5_does():
    tokens = ["don't", "café", "naïve", "ς", "straße", "潮位", "python's", "ǆ", "ﬁ"]
    assert [list(fold(t)) for t in tokens] == fts5_tokens(tokens)


def test_every_letter_folds_as_fts5_folds_it():
    letters = [
        ch
        for cp in [*range(0x80, 0x3400), *range(0xA000, 0xD800), *range(0xE000, 0x10000)]
        if len(ch := chr(cp).lower()) == 1 and _WORD.fullmatch(ch)
    ]
    words = ["a" + ch + "a" for ch in letters]
    differ = [w for w, want in zip(words, fts5_tokens(words), strict=True) if list(fold(w)) != want]
    assert len(words) > 20_000 and len(differ) <= _UNICODE_VERSION_GAPS, differ


def test_a_row_counts_fts5_tokens_per_column_and_names_keep_their_positions():
    columns = ["don't panic", "", "don't don't", "x os path"]
    literal, length = tsvector(columns)
    counted, counts = column_counts(columns)
    assert length == counted == 10  # don, t, panic | don, t, don, t | x, os, path
    assert (
        counts["don"] == [1, 0, 2, 0] and counts["panic"] == [1, 0, 0, 0] and counts["path"] == [0, 0, 0, 1]
    )
    assert "'os':2D" in literal and "'path':3D" in literal  # a names phrase matches with <->


def test_a_term_with_an_apostrophe_is_a_phrase_and_names_only_queries_the_names_column():
    tsq, pieces = query(["don't", "café"])
    assert pieces == [["don", "t"], ["cafe"]] and tsq == "('don' <-> 't') | ('cafe')"
    assert query(["os path"], names_only=True)[0] == "('os':D <-> 'path':D)"


def test_packed_term_rows_decode_to_the_counts_they_were_made_of():
    first = (7, {"a": [1, 0, 200, 0], "b": [0, 0, 1, 0]}, [(0, 5, {"a": [1, 0, 3, 0]})])
    second = (9, {"a": [0, 0, 197, 0]}, [(130, 70_000, {"a": [0, 0, 197, 0], "c": [0, 1, 0, 0]})])
    rows = dict(bundle_rows(7, [first, second]))
    data = decode([rows["a"], rows["b"], rows["c"]], [7, 7, 7])
    assert data.row.tolist() == [0, 0, 1, 2] and data.page_id.tolist() == [7, 9, 7, 9]
    assert data.page.tolist() == [[1, 0, 200, 0], [0, 0, 197, 0], [0, 0, 1, 0], [0, 0, 0, 0]]
    assert data.section_seg.tolist() == [0, 1, 3]
    assert data.section.tolist() == [
        [0, 5, 1, 0, 3, 0],
        [130, 70_000, 0, 0, 197, 0],
        [130, 70_000, 0, 1, 0, 0],
    ]
    again = page_terms(data, ["a", "b", "c"])
    assert dict(bundle_rows(7, again)) == rows
    assert decode([rows["b"]], [7]).section.shape == (0, 6)  # one byte a value: the quick path
    assert rows["b"] == bytes([1, 0, 0, 1 << 3])  # n, offset, no section, one head: zero counts take no byte
    assert decode([], []).page.shape == (0, 4)
