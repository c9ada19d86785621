"""bodies: one content coding, inflated step by step under a limit; charsets that cannot decode."""

from __future__ import annotations

import asyncio
import gzip
import tracemalloc
import zlib

import pytest

from docs_mcp.errors import FetchError
from docs_mcp.fetch.bodies import BodyTooLarge, CorruptBody, Inflater, coding_of, decode, gunzip, read_body

TEXT = b"<p>tidal datum offsets</p>" * 20_000


def feed_all(inflater: Inflater, data: bytes, size: int = 1000) -> bytes:
    return b"".join(inflater.feed(data[i : i + size]) for i in range(0, len(data), size))


@pytest.mark.parametrize(
    ("coding", "data"),
    [
        ("gzip", gzip.compress(TEXT)),
        ("x-gzip", gzip.compress(TEXT)),
        ("deflate", zlib.compress(TEXT)),
        ("deflate", zlib.compress(TEXT)[2:-4]),  # raw deflate, as some servers send it
        ("", TEXT),
    ],
)
def test_each_coding_inflates_to_the_body(coding, data):
    assert feed_all(Inflater(coding, 10**7), data) == TEXT


def test_concatenated_gzip_members_are_one_body():
    assert Inflater("gzip", 100).feed(gzip.compress(b"abc") + gzip.compress(b"def")) == b"abcdef"


@pytest.mark.slow
def test_a_bomb_stops_at_the_limit_without_inflating_the_rest():
    bomb = gzip.compress(b"\0" * 200_000_000, 9)
    tracemalloc.start()
    try:
        with pytest.raises(BodyTooLarge) as exc:
            Inflater("gzip", 1_000_000).feed(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert exc.value.size == 1_000_001
    assert peak < 5_000_000, peak


def test_corrupt_data_is_a_corrupt_body():
    with pytest.raises(CorruptBody):
        Inflater("gzip", 1000).feed(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + b"\xff" * 50)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        (["gzip, gzip"], "2 stacked"),
        (["gzip", "deflate"], "2 stacked"),
        (["br"], "'br'"),
        (["x-evil"], "'x-evil'"),
    ],
)
def test_stacked_or_unknown_codings_are_refused(headers, expected):
    with pytest.raises(FetchError, match=expected):
        coding_of(headers, "http://h/x")


def test_identity_and_no_coding_mean_none():
    assert coding_of(["identity"], "u") == coding_of([], "u") == ""


def test_read_body_truncates_discovery_files_at_the_limit():
    async def chunks():
        for i in range(0, len(TEXT), 4096):
            yield TEXT[i : i + 4096]

    assert asyncio.run(read_body(chunks(), "", 10_000, truncate=True)) == TEXT[:10_000]
    with pytest.raises(BodyTooLarge):
        asyncio.run(read_body(chunks(), "", 10_000))


def test_gunzip_keeps_what_came_before_a_cut():
    assert gunzip(gzip.compress(TEXT)[:-200], 10**7) == TEXT[: len(gunzip(gzip.compress(TEXT)[:-200], 10**7))]
    assert len(gunzip(gzip.compress(TEXT), 1000)) == 1000


@pytest.mark.parametrize(
    "charset",
    ["undefined", "idna", "rot13", "base64", "zlib_codec", "hex", "punycode", "nonsense", "utf-8\x00"],
)
def test_a_charset_that_cannot_decode_counts_as_absent(charset):
    assert decode("café".encode(), charset) == "café"


def test_decode_uses_the_header_charset_then_the_meta_one():
    assert decode("café".encode("latin-1"), "latin-1") == "café"
    assert decode(b'<meta charset="latin-1">caf\xe9', None).endswith("café")


def test_decode_removes_characters_no_parser_accepts():
    assert decode(b"a\x00b\x01c\td", None) == "abc\td"
