"""A page's full-text postings as the PostgreSQL index stores them: one `terms` row per (term, page), its
counts packed as unsigned LEB128 varints: the page's [title, headings, body, names] counts (FTS5's pages_fts
row), then for each section holding the term its [ord, length, title, path, body, names] (sections_fts).

One row per term and page, not per term and section (the rows FTS5 keeps in its doclists): the 28 bytes of
a PostgreSQL row header and its index entries were most of the index (section_terms and page_terms took 118
of the Python docs' 164 MB). A page's rows are written and deleted with the page (no row is shared between
pages: a rewrite leaves dead rows that VACUUM gives back, nothing to merge); BM25 is summed here, over
numpy arrays decoded from the rows of the query's terms (rank.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Values per section posting, and the page's counts that lead each row.
SECTION_FIELDS, PAGE_FIELDS = 6, 4


def varints(values: Sequence[int]) -> bytes:
    """Non-negative integers as unsigned LEB128 (7 bits a byte, the high bit set on all but a value's last)."""
    if max(values, default=0) < 128:
        return bytes(values)
    out = bytearray()
    for v in values:
        while v >= 128:
            out.append((v & 127) | 128)
            v >>= 7
        out.append(v)
    return bytes(out)


def page_rows(
    page_counts: dict[str, list[int]], sections: Sequence[tuple[int, int, dict[str, list[int]]]]
) -> list[tuple[str, bytes]]:
    """(term, packed counts) of every term of a page: `page_counts` {term: [a, b, c, d]} of its pages_fts
    row, `sections` (ord, length, {term: [a, b, c, d]}) of its sections_fts rows."""
    values: dict[str, list[int]] = {t: list(c) for t, c in page_counts.items()}
    for ord_, length, counts in sections:
        for term, c in counts.items():
            values.setdefault(term, [0, 0, 0, 0]).extend((ord_, length, *c))
    return [(term, varints(v)) for term, v in values.items()]


@dataclass
class Decoded:
    """The rows of a query's terms, decoded: per row its page counts, per section posting its row and values."""

    page: np.ndarray  # (rows, 4): title, headings, body, names
    section_row: np.ndarray  # (postings,): the row each section posting came from
    section: np.ndarray  # (postings, 6): ord, length, title, path, body, names


def decode(blobs: Sequence[bytes]) -> Decoded:
    """All rows' varints at once (vectorised: a query reads thousands of rows)."""
    sizes = np.fromiter((len(b) for b in blobs), np.int64, len(blobs))
    buf = np.frombuffer(b"".join(blobs), np.uint8)
    ends = buf < 128
    ends_before = np.concatenate(([0], np.cumsum(ends)))
    if ends.all():  # every value under 128: one byte each
        values = buf.astype(np.int64)
    else:
        starts = np.concatenate(([0], np.flatnonzero(ends)[:-1] + 1))
        value_of_byte = ends_before[:-1]
        shift = 7 * (np.arange(len(buf)) - starts[value_of_byte])
        values = np.add.reduceat((buf & 127).astype(np.int64) << shift, starts) if len(buf) else buf
    # Values per row: the value ends within its bytes.
    bounds = np.concatenate(([0], np.cumsum(sizes)))
    per_row = np.diff(ends_before[bounds])
    first = np.concatenate(([0], np.cumsum(per_row)[:-1]))
    row_of_value = np.repeat(np.arange(len(blobs)), per_row)
    in_page = (np.arange(len(values)) - first[row_of_value]) < PAGE_FIELDS
    page = values[in_page].reshape(-1, PAGE_FIELDS)
    section = values[~in_page].reshape(-1, SECTION_FIELDS)
    section_row = np.repeat(np.arange(len(blobs)), (per_row - PAGE_FIELDS) // SECTION_FIELDS)
    return Decoded(page, section_row, section)
