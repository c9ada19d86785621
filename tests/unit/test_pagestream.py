"""A page's stream (store/pagestream.py): what each reader gets back, and how far it reads."""

from __future__ import annotations

import random
import string
import zlib

import pytest

from docs_mcp.errors import StreamDamaged
from docs_mcp.store.pagestream import pack_page, places_at, unpack_links, unpack_page, unpack_places

PATHS = ["Tide tables", "Tide tables > Reading", "Tide tables > Reading > Étale"]
#: The last text is long and random (it does not compress): a stream cut short loses it alone.
TEXTS = [
    "Tables list the tides.",
    "Read each row\nby its port.",
    "".join(random.Random(7).choices(string.printable, k=200_000)),
]
LINKS = ["care.html", "log.html#noon", "care.html"]
DOC = b'{"title": "Tides"}'


def test_a_page_s_stream_gives_back_its_places_links_and_document():
    blob = pack_page(PATHS, TEXTS, LINKS, DOC)
    assert unpack_places(blob) == (PATHS, TEXTS)
    assert unpack_links(blob) == ["care.html", "log.html#noon"]
    assert unpack_page(blob) == (PATHS, TEXTS, ["care.html", "log.html#noon"], DOC)
    assert unpack_page(pack_page([], [], [], b"{}")) == ([], [], [], b"{}")


def test_sections_asked_by_place_come_back_with_their_paths_and_places_beyond_the_page_are_left_out():
    blob = pack_page(PATHS, TEXTS, LINKS, DOC)
    assert places_at(blob, [1, 0, 1, 9]) == {0: (PATHS[0], TEXTS[0]), 1: (PATHS[1], TEXTS[1])}
    assert places_at(blob, [2]) == {2: (PATHS[2], TEXTS[2])}
    assert places_at(blob, [-1, 3]) == {} and places_at(None, [0]) == {}


def test_a_section_is_read_without_inflating_the_sections_after_it():
    blob = pack_page(PATHS, TEXTS, LINKS, DOC)
    cut = blob[: len(blob) // 4]  # the long last text and all after it lost
    assert places_at(cut, [0, 1]) == {0: (PATHS[0], TEXTS[0]), 1: (PATHS[1], TEXTS[1])}
    with pytest.raises(StreamDamaged):
        unpack_page(cut)


def test_places_are_measured_in_bytes_so_astral_nul_and_empty_texts_come_back_whole():
    paths, texts = ["", "Ünïcode > 𝄞", "nul"], ["", "tide 😀 " * 50 + "中文", "a\x00b"]
    blob = pack_page(paths, texts, [], b"{}")
    assert places_at(blob, [2, 1, 0]) == dict(enumerate(zip(paths, texts, strict=True)))
    assert unpack_page(blob) == (paths, texts, [], b"{}")


def cut_within(blob: bytes, size: int) -> bytes:
    """`blob` cut to the shortest prefix that still inflates to `size` bytes of its stream, less one byte."""
    return next(
        blob[:n] for n in range(9, len(blob)) if len(zlib.decompressobj().decompress(blob[8 : n + 1])) >= size
    )


def test_a_stream_cut_before_a_section_s_end_is_damage_not_a_shorter_text():
    blob = pack_page(PATHS, TEXTS, LINKS, DOC)
    cut = cut_within(blob, len(unpack_page(blob)[0][0]) + 50_000)  # halfway into the last text
    assert places_at(cut, [0]) == {0: (PATHS[0], TEXTS[0])}
    for read in (lambda: places_at(cut, [2]), lambda: unpack_places(cut), lambda: unpack_links(cut)):
        with pytest.raises(StreamDamaged, match="damaged"):
            read()


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[:3],  # shorter than its lengths
        lambda b: b[:12],  # not even the places' count
        lambda b: b[:8] + b"not zlib" * 8,
        lambda b: b[:20] + bytes([b[20] ^ 0xFF]) + b[21:],
        lambda b: (int.from_bytes(b[:4], "big") + 1).to_bytes(4, "big") + b[4:],  # lengths that lie
    ],
    ids=["lengths", "count", "garbage", "flipped", "lying"],
)
def test_a_damaged_stream_is_said_to_be_damaged_by_every_reader(damage):
    bad = damage(pack_page(PATHS, TEXTS, LINKS, DOC))
    for read in (places_at, lambda b, _: unpack_places(b), lambda b, _: unpack_page(b)):
        with pytest.raises(StreamDamaged, match="a page's stored stream is damaged"):
            read(bad, [0])
