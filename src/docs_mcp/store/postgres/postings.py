"""Full-text postings as the PostgreSQL index stores them: one `terms` row per term and bundle (the pages one
write stored together, up to a crawl's batch), its counts packed as unsigned LEB128 varints:

    [n, page offset × n, sections holding it × n, page head × n, section postings (ord, length, head) × all,
     extra counts]

A page's offset is its id less the bundle's (the bundle's id is its first page's). The four counts of an
entry (title, headings or path, body, names) are one head, body << 3 | a flag per other count that is not 0,
the flagged counts following all heads, in order (the page entries', then the section postings'): the body
holds the term in nearly every entry, the others in 2-5%, and a zero took a byte each (3.7 of 8.3 MB).
One row per term and page cost PostgreSQL a 28-byte row header and an index entry each: most of the index. A
page rewritten or removed leaves its postings in its bundle's rows until the bundle is rewritten without them
(once 3/4 of its pages are gone) or deleted (once all are); readers skip pages that are no longer in `pages`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Values per section posting, and the page's counts.
SECTION_FIELDS, PAGE_FIELDS = 6, 4
#: (page id, the page's counts {term: [a, b, c, d]}, its sections' (ord, length, {term: [a, b, c, d]})).
PageTerms = tuple[int, dict[str, list[int]], Sequence[tuple[int, int, dict[str, list[int]]]]]


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


#: The counts a head flags (title, headings or path, names: the body is the head's value).
_FLAGGED = (0, 1, 3)


def _head(counts: Sequence[int], extra: list[int]) -> int:
    """An entry's four counts as one value, the counts other than the body's that are not 0 added to `extra`."""
    flags = 0
    for bit, column in enumerate(_FLAGGED):
        if counts[column]:
            flags |= 1 << bit
            extra.append(counts[column])
    return counts[2] << 3 | flags


def bundle_rows(bundle: int, pages: Sequence[PageTerms]) -> list[tuple[str, bytes]]:
    """(term, packed postings) of every term of a bundle's pages."""
    held: dict[str, dict[int, tuple[list[int], list[tuple]]]] = {}
    for page_id, page_counts, sections in pages:
        mine: dict[str, tuple[list[int], list[tuple]]] = {t: (list(c), []) for t, c in page_counts.items()}
        for ord_, length, counts in sections:
            for term, c in counts.items():
                mine.setdefault(term, ([0, 0, 0, 0], []))[1].append((ord_, length, c))
        for term, entry in mine.items():
            held.setdefault(term, {})[page_id] = entry
    rows = []
    for term, by_page in held.items():
        ids = sorted(by_page)
        extra: list[int] = []
        values = [len(ids), *(i - bundle for i in ids)]
        values += [len(by_page[i][1]) for i in ids]
        values += [_head(by_page[i][0], extra) for i in ids]
        for i in ids:
            for ord_, length, counts in by_page[i][1]:
                values += (ord_, length, _head(counts, extra))
        rows.append((term, varints(values + extra)))
    return rows


@dataclass
class Decoded:
    """Rows decoded into their pages' entries (segments): each one's row, page id, counts, and sections."""

    row: np.ndarray  # (segments,): the row each page's entry came from
    page_id: np.ndarray  # (segments,)
    page: np.ndarray  # (segments, 4): title, headings, body, names
    section_seg: np.ndarray  # (postings,): the entry each section posting belongs to
    section: np.ndarray  # (postings, 6): ord, length, title, path, body, names

    def only(self, keep: np.ndarray) -> Decoded:
        """The entries where `keep` (and their sections)."""
        renumber = np.cumsum(keep) - 1
        held = keep[self.section_seg]
        return Decoded(
            self.row[keep],
            self.page_id[keep],
            self.page[keep],
            renumber[self.section_seg[held]],
            self.section[held],
        )


def _values(blobs: Sequence[bytes]) -> tuple[np.ndarray, np.ndarray]:
    """All rows' varints at once (vectorised), and the number of values in each row."""
    sizes = np.fromiter((len(b) for b in blobs), np.int64, len(blobs))
    buf = np.frombuffer(b"".join(blobs), np.uint8)
    ends = buf < 128
    ends_before = np.concatenate(([0], np.cumsum(ends)))
    if ends.all():  # every value under 128: one byte each
        values = buf.astype(np.int64)
    else:
        starts = np.concatenate(([0], np.flatnonzero(ends)[:-1] + 1))
        shift = 7 * (np.arange(len(buf)) - starts[ends_before[:-1]])
        values = np.add.reduceat((buf & 127).astype(np.int64) << shift, starts)
    bounds = np.concatenate(([0], np.cumsum(sizes)))
    return values, np.diff(ends_before[bounds])


def decode(blobs: Sequence[bytes], bundles: Sequence[int]) -> Decoded:
    """The rows of `bundle_rows`, each with its bundle's id."""
    values, per_row = _values(blobs)
    rows = len(blobs)
    first = np.concatenate(([0], np.cumsum(per_row)[:-1])).astype(np.int64)
    n = values[first] if rows else np.zeros(0, np.int64)
    row_of_value = np.repeat(np.arange(rows), per_row)
    pos, n_of_value = np.arange(len(values)) - first[row_of_value], n[row_of_value]
    seg_row = np.repeat(np.arange(rows), n)
    offsets = values[(pos >= 1) & (pos <= n_of_value)]
    sections = values[(pos > n_of_value) & (pos <= 2 * n_of_value)]
    page_head = values[(pos > 2 * n_of_value) & (pos <= 3 * n_of_value)]
    postings = np.bincount(seg_row, weights=sections, minlength=rows).astype(np.int64)
    end = 3 * (n + postings)[row_of_value]
    section = values[(pos > 3 * n_of_value) & (pos <= end)].reshape(-1, 3)
    extra = values[pos > end]
    section_seg = np.repeat(np.arange(len(offsets)), sections)
    page, counts = _counts(page_head, section[:, 2], seg_row, seg_row[section_seg], n, postings, extra)
    page_id = np.asarray(bundles, np.int64)[seg_row] + offsets if rows else offsets
    return Decoded(seg_row, page_id, page, section_seg, np.column_stack((section[:, :2], counts)))


def _counts(page_head, section_head, page_row, section_row, n, postings, extra):
    """The four counts of every page entry and section posting, from their heads and the rows' extra counts
    (in each row: its page entries' flagged counts, then its section postings')."""
    heads = len(page_head) + len(section_head)
    start = np.concatenate(([0], np.cumsum(n + postings)[:-1])).astype(np.int64)  # each row's first head
    page_first = np.concatenate(([0], np.cumsum(n)[:-1])).astype(np.int64)
    section_first = np.concatenate(([0], np.cumsum(postings)[:-1])).astype(np.int64)
    # Every head's place in the order its flagged counts were written.
    page_at = start[page_row] + np.arange(len(page_head)) - page_first[page_row]
    section_at = (
        start[section_row] + n[section_row] + np.arange(len(section_head)) - section_first[section_row]
    )
    flags = np.zeros(heads, np.int64)
    flags[page_at], flags[section_at] = page_head & 7, section_head & 7
    flagged = np.zeros((heads, len(_FLAGGED)), np.int64)
    flagged[(flags[:, None] >> np.arange(len(_FLAGGED))) & 1 == 1] = extra
    out = []
    for head, at in ((page_head, page_at), (section_head, section_at)):
        four = np.zeros((len(head), 4), np.int64)
        four[:, list(_FLAGGED)] = flagged[at]
        four[:, 2] = head >> 3
        out.append(four)
    return out[0], out[1]


def page_terms(data: Decoded, terms: Sequence[str]) -> list[PageTerms]:
    """The pages' entries of decoded rows (`terms`: each row's term) as `bundle_rows` takes them again."""
    pages: dict[int, tuple[dict, dict]] = {}
    for seg, (row, page_id) in enumerate(zip(data.row.tolist(), data.page_id.tolist(), strict=True)):
        counts, _ = pages.setdefault(page_id, ({}, {}))
        if any(data.page[seg]):
            counts[terms[row]] = data.page[seg].tolist()
    for seg, section in zip(data.section_seg.tolist(), data.section.tolist(), strict=True):
        held = pages[int(data.page_id[seg])][1].setdefault((section[0], section[1]), {})
        held[terms[data.row[seg]]] = section[2:]
    return [
        (pid, counts, [(o, n, c) for (o, n), c in sorted(s.items())]) for pid, (counts, s) in pages.items()
    ]
