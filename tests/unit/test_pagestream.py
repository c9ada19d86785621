"""A page's stream (store/pagestream.py): what each reader gets back, and how far it reads."""

from __future__ import annotations

import random
import string
import zlib

import pytest

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
    with pytest.raises(zlib.error):
        unpack_page(cut)
