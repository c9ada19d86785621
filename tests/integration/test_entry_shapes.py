"""Entries recognised by shape (issue 20): Texinfo option lists, SQLite-style term lines, each a unit of its own."""

from __future__ import annotations

import asyncio
import functools

import pytest
from conftest import FIXTURES, make_tools

from docs_mcp.model.document import Document
from docs_mcp.tools.docs import DocsTools

SHAPES = FIXTURES / "shapes"


@functools.cache
def tools() -> DocsTools:
    return make_tools(str(SHAPES))


def doc(page: str) -> Document:
    return asyncio.run(make_tools(str(SHAPES)).document(page))[1]


def call(tool: str, *args, **kwargs) -> str:
    return asyncio.run(getattr(tools(), tool)(*args, **kwargs))


def test_an_option_of_a_texinfo_list_is_its_own_unit_named_without_its_pilcrow():
    page = doc("texinfo.html")
    ref = page.find("index-_002d_002doffline")
    assert ref.entry >= 0 and page.unit_title(ref) == "--offline"
    assert page.unit_markdown(ref) == (
        "`--offline`\n:   Never contact the archive server: answer from the local mirror alone, and fail with exit"
        " status 3\n    when a requested day is missing from it."
    )


def test_an_option_that_answers_alone_ranks_its_long_section_and_is_shown_from_its_term():
    out = call("search_in_doc", "texinfo.html", "operator flagged suspect readings", max_length=1200)
    assert "## 2.1 Fetch Options #Fetch-Options-1" in out
    assert "`--exclude-flagged`\n:   Drop readings the station operator flagged as suspect." in out
    assert "in --exclude-flagged #index-_002d_002dexclude_002dflagged]" not in out  # it starts at its term


def test_term_lines_swallowed_by_the_paragraph_before_them_are_each_an_entry():
    page = doc("sqlite-style.html")
    toc = call("get_doc_toc", "sqlite-style.html")
    assert "SETTING buffer_days #setting_buffer_days · SETTING despike #setting_despike" in toc
    text = page.unit_markdown(page.find("setting_vacuum"))
    assert text.startswith("SETTING vacuum\n\n---\n\n**SETTING vacuum =**")
    assert text.endswith("afterwards it takes a rebuild with the repack command.")
    assert "buffer_days" not in text and "Build-Time" not in text


def test_bold_term_paragraphs_with_a_quoted_description_are_entries_named_by_their_anchor():
    page = doc("sqlite-style.html")
    ref = page.find("max_stations")
    assert page.unit_title(ref) == "TIDEPOOL_MAX_STATIONS=<N>"
    assert "The most stations one archive may hold." in page.unit_markdown(ref)
    assert "TIDEPOOL_OMIT_NETCDF" not in page.unit_markdown(ref)


def test_paragraphs_that_open_with_a_bold_word_are_prose_not_entries():
    page = doc("sqlite-style.html")
    notes = next(s for s in page.sections if s.id == "notes")
    assert notes.entries == ()


def test_the_markdown_is_the_same_with_or_without_shape_entries(monkeypatch: pytest.MonkeyPatch):
    from docs_mcp import settings

    with_units = doc("sqlite-style.html")
    monkeypatch.setattr(settings, "ABLATED", settings.ABLATED | {"entries-shape"})
    without = doc("sqlite-style.html")
    assert sum(len(s.entries) for s in without.sections) == 0
    assert sum(len(s.entries) for s in with_units.sections) == 7
    assert without.markdown() == with_units.markdown()


def test_each_row_of_an_option_table_is_an_entry_named_by_its_row_id():
    page = doc("options-table.html")
    ref = page.find("opt-overwrite")
    assert page.unit_title(ref) == "--overwrite"
    assert page.unit_markdown(ref) == (
        "`--overwrite` | Replace files that already exist; without it, an existing file stops the export before"
        " anything is written."
    )
    toc = call("get_doc_toc", "options-table.html")
    assert "- Options #options (419) · defines --out #opt-out · --split-by-year #opt-split" in toc


def test_a_table_whose_first_column_is_numbers_has_no_entries():
    page = doc("options-table.html")
    assert next(s for s in page.sections if s.id == "exit-status").entries == ()


def test_an_option_table_reads_the_same_with_or_without_its_entries(monkeypatch: pytest.MonkeyPatch):
    from docs_mcp import settings

    with_units = doc("options-table.html")
    monkeypatch.setattr(settings, "ABLATED", settings.ABLATED | {"entries-shape"})
    assert doc("options-table.html").markdown() == with_units.markdown()
