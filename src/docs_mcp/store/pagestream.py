"""A page's stream as the SQLite index stores it (`page_data.doc`): its sections' paths and texts, its links and
its document zlib'd together, read only as far as each reader needs."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import accumulate, pairwise

from docs_mcp.errors import StreamDamaged

#: zlib level of stored page data: 6 is within 0.5% of 9's size on Javadoc, and 18% smaller than 1's.
ZLIB_LEVEL = 6

#: The lengths of a page's texts and links in its stream (`pack_page`), before the zlib'd bytes: up to 4 GB each.
LENGTH_BYTES = 4

#: The places' table (`pack_page`): a section count, then each path's and text's length in bytes, as unsigned
#: 4-byte little-endian integers (struct's format letter).
PLACE_LENGTH = "I"
_PLACE_SIZE = struct.calcsize(f"<{PLACE_LENGTH}")


def pack_page(paths: Sequence[str], texts: Sequence[str], links: Iterable[str], doc: bytes) -> bytes:
    """A page as stored: its sections' paths (their headings above them) and texts, its distinct outgoing links
    (one a line, in order of first appearance: a refresh follows each once), then its document without the
    texts (`Document.to_json`), zlib'd together in one stream (the document repeats the texts' words and the
    links' addresses: every 5th page of JDK 17's Javadoc: one stream 16% smaller than three), after the lengths of the
    places and links (4 bytes each), so a refresh inflates the stream only as far as the links (`unpack_links`).
    The places are the sections' count and each one's path and text lengths, then those paths and texts in order
    (`PLACE_LENGTH`), so a search inflates only as far as the last section it reads (`places_at`)."""
    encoded = [value.encode("utf-8") for pair in zip(paths, texts, strict=True) for value in pair]
    table = struct.pack(f"<{len(encoded) + 1}{PLACE_LENGTH}", len(paths), *map(len, encoded))
    head = len(table) + sum(map(len, encoded))
    out = "\n".join(dict.fromkeys(links)).encode("utf-8")
    lengths = head.to_bytes(LENGTH_BYTES, "big") + len(out).to_bytes(LENGTH_BYTES, "big")
    # Fed a piece at a time: joined first, the texts were held twice more (89 MB of a page's texts: +306 MB
    # at peak, +136 MB so; the same bytes out: benchmarks/scale/stream_peak.py).
    packer = zlib.compressobj(ZLIB_LEVEL)
    return lengths + b"".join([*map(packer.compress, (table, *encoded, out, doc)), packer.flush()])


@contextmanager
def _intact() -> Iterator[None]:
    """A stream that cannot be read as `pack_page` wrote it (cut short, bytes changed on disk) is said to be
    damaged, whatever layer finds it (zlib, the places' table, UTF-8)."""
    try:
        yield
    except (zlib.error, struct.error, UnicodeDecodeError) as exc:
        raise StreamDamaged(f"a page's stored stream is damaged ({exc})") from None


def _lengths(blob: bytes) -> tuple[int, int]:
    if len(blob) < 2 * LENGTH_BYTES:
        raise StreamDamaged(f"a page's stored stream is damaged (cut short at {len(blob)} bytes)")
    return int.from_bytes(blob[:LENGTH_BYTES], "big"), int.from_bytes(
        blob[LENGTH_BYTES : 2 * LENGTH_BYTES], "big"
    )


class _Inflater:
    """A page's stream inflated as far as asked, a step at a time."""

    def __init__(self, blob: bytes) -> None:
        self.head, _ = _lengths(blob)
        self.stream = zlib.decompressobj()
        self.tail = blob[2 * LENGTH_BYTES :]
        self.out = bytearray()

    def upto(self, size: int) -> bytearray:
        """The first `size` bytes; a stream that ends before them is damaged (a short text is never returned)."""
        while len(self.out) < size:
            # Asked with no input left, zlib still gives what it holds inflated but not yet returned.
            chunk = self.stream.decompress(self.tail, size - len(self.out))
            self.tail = self.stream.unconsumed_tail
            self.out += chunk
            if not chunk and not self.tail:
                raise StreamDamaged(
                    f"a page's stored stream is damaged (it ends at {len(self.out)} of {size} bytes)"
                )
        return self.out


def _ends(raw: bytes | bytearray, count: int) -> list[int]:
    """Where each path and text ends, in bytes from the first path's start."""
    return list(accumulate(struct.unpack_from(f"<{2 * count}{PLACE_LENGTH}", raw, _PLACE_SIZE)))


def _table(upto: Callable[[int], bytes | bytearray], head: int) -> tuple[int, list[int]]:
    """Where the paths and texts start in a stream (inflated as far as `upto(size)` asks), and where each ends
    from there, checked against the places' size the stream's header says (`head`): a changed count or
    length is damage, not a shorter text."""
    (count,) = struct.unpack_from(f"<{PLACE_LENGTH}", upto(_PLACE_SIZE))
    base = _PLACE_SIZE * (2 * count + 1)
    if base > head:
        raise StreamDamaged(f"a page's stored stream is damaged (a table of {count:,} places)")
    ends = _ends(upto(base), count)
    if base + (ends[-1] if ends else 0) != head:
        raise StreamDamaged("a page's stored stream is damaged (its places do not add up to their size)")
    return base, ends


def _places(raw: bytes | bytearray) -> tuple[list[str], list[str]]:
    (count,) = struct.unpack_from(f"<{PLACE_LENGTH}", raw)
    ends, base = _ends(raw, count), _PLACE_SIZE * (2 * count + 1)
    values = [raw[base + a : base + b].decode("utf-8") for a, b in pairwise([0, *ends])]
    return values[0::2], values[1::2]


def unpack_places(blob: bytes | None) -> tuple[list[str], list[str]]:
    """The (paths, texts) `pack_page` stored."""
    if not blob:
        return [], []
    with _intact():
        stream = _Inflater(blob)
        _table(stream.upto, stream.head)
        return _places(stream.upto(stream.head))


def places_at(blob: bytes | None, ords: Iterable[int]) -> dict[int, tuple[str, str]]:
    """The (path, text) of the sections at these places of a page (those it has), inflating its stream only as
    far as the last of them."""
    wanted = sorted(set(ords))
    if not blob or not wanted:
        return {}
    with _intact():
        stream = _Inflater(blob)
        base, ends = _table(stream.upto, stream.head)
        wanted = [o for o in wanted if 0 <= o < len(ends) // 2]
        raw = stream.upto(base + ends[2 * wanted[-1] + 1]) if wanted else b""
        out = {}
        for o in wanted:
            start, middle, end = (
                base + (ends[2 * o - 1] if o else 0),
                base + ends[2 * o],
                base + ends[2 * o + 1],
            )
            out[o] = (raw[start:middle].decode("utf-8"), raw[middle:end].decode("utf-8"))
        return out


def unpack_links(blob: bytes | None) -> list[str]:
    """The outgoing links `pack_page` stored."""
    if not blob:
        return []
    with _intact():
        texts, links = _lengths(blob)
        out = _Inflater(blob).upto(texts + links)[texts:].decode("utf-8")
        return out.split("\n") if out else []


def unpack_page(blob: bytes) -> tuple[list[str], list[str], list[str], bytes]:
    """The paths, texts, links and document JSON (`Document.from_json`) `pack_page` stored."""
    with _intact():
        texts_size, links_size = _lengths(blob)
        raw = zlib.decompress(blob[2 * LENGTH_BYTES :])  # the whole stream: its checksum read too
        if len(raw) < texts_size + links_size:
            raise StreamDamaged(f"a page's stored stream is damaged (it ends at {len(raw)} bytes)")
        _table(lambda _: raw, texts_size)
        paths, texts = _places(raw)
        links = raw[texts_size : texts_size + links_size].decode("utf-8")
        return paths, texts, links.split("\n") if links else [], raw[texts_size + links_size :]
