"""How thin a page is, from its sections and their words alone."""

from __future__ import annotations

import pytest

from docs_mcp.search.site.page_kind import THIN_WORDS, thinness


def test_prose_sections_are_not_thin():
    assert thinness(7, 7 * 120) == 0.0  # a guide: ~120 words a section
    assert thinness(3, 3 * THIN_WORDS) == 0.0


def test_member_stubs_and_one_line_listings_are_thin_in_proportion():
    stub, listing, between = thinness(4, 4 * 6), thinness(190, 190 * 8), thinness(10, 10 * THIN_WORDS // 2)
    assert stub == 1.0 and listing == 1.0  # a quarter of THIN_WORDS or fewer: the whole weight
    assert between == pytest.approx(0.5)  # half of THIN_WORDS a section: half of it


def test_a_page_without_sections_is_not_judged():
    assert thinness(0, 0) == 0.0
