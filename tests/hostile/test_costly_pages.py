"""Pages cheap to send and costly to convert (issue 34, item 1): each is read, in time linear in its size, and
what was capped says so. Timings are printed by benchmarks/reliability/costly_pages.py; these tests assert behaviour."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docs_mcp.convert.html_markdown import NEWLINE_SPACE
from docs_mcp.fetch.sources import SourceSet
from docs_mcp.settings import MAX_PAGE_SECTIONS, Settings
from docs_mcp.tools.docs import DocsTools

pytestmark = pytest.mark.anyio

#: markdownify's own pattern, quadratic in a run of blanks without a newline.
QUADRATIC = re.compile(r"[\t \r\n]*[\r\n][\t \r\n]*")


def tools_for(tmp_path: Path, **pages: str) -> DocsTools:
    for name, html in pages.items():
        (tmp_path / f"{name}.html").write_text(html, encoding="utf-8")
    return DocsTools(SourceSet.from_specs([str(tmp_path)]), Settings(deadline=60.0))


def html(title: str, body: str) -> str:
    return f"<html><head><title>{title}</title></head><body>{body}</body></html>"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab \t\r\n", max_size=40))
def test_the_linear_whitespace_pattern_finds_what_markdownifys_finds(text):
    assert NEWLINE_SPACE.sub("\n", text) == QUADRATIC.sub("\n", text)


async def test_a_paragraph_of_80000_spaces_is_read(tmp_path):
    tools = tools_for(
        tmp_path, spaces=html("Spaces", "<h1>Spaces</h1><p>before" + " " * 80_000 + "after</p>")
    )
    toc = await tools.get_doc_toc(str(tmp_path / "spaces.html"))
    assert "- Spaces #spaces" in toc
    text = await tools.get_doc_section(str(tmp_path / "spaces.html"), "spaces")
    assert "before after" in text


async def test_100000_nested_divs_are_flattened_with_a_note(tmp_path):
    body = "<h1>Divs</h1>" + "<div>" * 100_000 + "deep words" + "</div>" * 100_000
    tools = tools_for(tmp_path, divs=html("Divs", body))
    text = await tools.get_doc_content(str(tmp_path / "divs.html"))
    assert "deeper than 2,048 levels" in text and "deep words" in text
    toc = await tools.get_doc_toc(str(tmp_path / "divs.html"))
    assert "- Divs #divs" in toc


@pytest.mark.slow
async def test_20000_headings_keep_an_outline_and_the_cap_says_so(tmp_path):
    body = "".join(f"<h2>Heading {i}</h2><p>text {i}</p>" for i in range(20_000))
    tools = tools_for(tmp_path, many=html("Many", body))
    url = str(tmp_path / "many.html")
    toc = await tools.get_doc_toc(url)
    assert f"{MAX_PAGE_SECTIONS} sections" in toc
    assert "- Heading 0 #heading-0" in toc and "- Heading 100 #heading-100" in toc
    assert "[outline cut: the first " in toc and len(toc) <= 20_000 + 1_000
    last = await tools.get_doc_section(url, f"heading-{MAX_PAGE_SECTIONS - 1}", max_length=2_000)
    assert f"this page has 20,000 headings; the first {MAX_PAGE_SECTIONS:,} are sections" in last
    assert f"Heading {MAX_PAGE_SECTIONS}\n" in last  # the next heading is a paragraph of the last section
    found = await tools.search_in_doc(url, "Heading 19999")
    assert "text 19999" in found


@pytest.mark.slow
async def test_a_3mb_section_is_searched(tmp_path):
    words = [f"w{i}x" for i in range(300)]
    lines = "".join(
        "<p>" + " ".join(words[(i * 7 + k) % 300] for k in range(12)) + "</p>" for i in range(25_000)
    )
    tools = tools_for(tmp_path, big=html("Big", "<h1>Big</h1>" + lines + "<p>needle haystack</p>"))
    found = await tools.search_in_doc(str(tmp_path / "big.html"), "needle haystack")
    assert "needle haystack" in found
