"""Real pages (fixtures/real: Python 3.11, PostgreSQL 15, Django 3.2 docs): anchors, definitions, code, tables."""

from __future__ import annotations

import asyncio
import functools
import re

import pytest
from conftest import FIXTURES, make_tools

from docs_mcp.model.document import Document
from docs_mcp.tools.docs import DocsTools

REAL = FIXTURES / "real"


@functools.cache
def tools(site: str) -> DocsTools:
    return make_tools(str(REAL / site))


def call(site: str, tool: str, *args, **kwargs) -> str:
    return asyncio.run(getattr(tools(site), tool)(*args, **kwargs))


@functools.cache
def doc(site: str, page: str) -> Document:
    return asyncio.run(tools(site).document(page))[1]


def body(answer: str) -> str:
    """A tool answer without its header lines."""
    return answer.split("\n\n", 1)[1]


# --- 1. every anchor is an address ----------------------------------------------------------------
def test_a_sphinx_definition_id_names_its_definition():
    out = call("python", "get_doc_section", "library/re.html", "re.sub")
    assert out.split("\n")[1].startswith("library/re.html#re.sub (")
    assert body(out).startswith(
        "re.sub(pattern, repl, string, count=0, flags=0)\n:   Return the string obtained"
    )
    assert "re.subn(" not in out  # the next definition is not part of it


def test_a_fragment_starts_get_doc_content_at_its_unit_and_says_so():
    out = call("python", "get_doc_content", "library/re.html#re.sub", max_length=400)
    assert "started at #re.sub" in out.split("\n\n", 1)[0]
    assert body(out).startswith("re.sub(pattern, repl, string, count=0, flags=0)")
    top = call("python", "get_doc_content", "library/re.html", max_length=400)
    assert body(top).startswith("# re — Regular expression operations")


def test_the_id_the_site_links_to_names_the_section_and_its_container_id_still_resolves():
    toc = call("django", "get_doc_toc", "ref/models/querysets.html")
    assert "- `select_related()` #select-related (" in toc or "- select_related() #select-related (" in toc
    assert "#s-select-related" not in toc
    for name in ("select-related", "s-select-related", "#select-related"):
        out = call("django", "get_doc_section", "ref/models/querysets.html", name, max_length=300)
        assert out.split("\n")[1].startswith("ref/models/querysets.html#select-related ("), name


def test_an_exact_id_wins_over_a_heading_with_the_same_text():
    out = call("django", "get_doc_section", "ref/models/querysets.html", "filter", max_length=400)
    assert "#filter (" in out.split("\n")[1] and "Methods that return new QuerySets > filter()" in out
    assert "Aggregation functions" not in out.split("\n")[1]


def test_an_ambiguous_heading_text_says_which_it_chose_and_lists_the_others():
    out = call("django", "get_doc_section", "ref/models/querysets.html", "sample", max_length=300)
    note = out.split("\n")[2]
    assert note.startswith("('sample' is the heading of 2 units") and "Others: #" in note


def test_an_id_inside_a_definition_resolves_to_that_definition():
    d = doc("postgresql", "sql-createtable.html")
    ref = d.find("SQL-CREATETABLE-TEMPORARY")
    assert ref.entry >= 0 and d.unit_title(ref) == "TEMPORARY or TEMP"
    assert d.find("sql-createtable-temporary") == ref  # PostgreSQL writes its ids in capitals


# --- 2. definitions are units ---------------------------------------------------------------------
def test_a_parameter_definition_is_its_own_unit_not_the_whole_parameters_section():
    out = call("postgresql", "get_doc_section", "sql-createtable.html", "SQL-CREATETABLE-TEMPORARY")
    size = int(re.search(r"content_length=(\d+)", out).group(1))
    assert size < 3_000  # the Parameters section is 46,000 chars
    assert body(out).startswith(
        "`TEMPORARY` or `TEMP`\n:   If specified, the table is created as a temporary table."
    )
    assert "UNLOGGED" not in body(out).split("\n", 1)[0]


def test_search_in_doc_shows_the_grammar_and_the_definition_not_an_empty_synopsis():
    out = call("postgresql", "search_in_doc", "sql-createtable.html", "identity column generated always")
    synopsis = out.split("## Synopsis #synopsis\n", 1)[1].split("\n## ", 1)[0]
    assert "GENERATED { ALWAYS | BY DEFAULT } AS IDENTITY [ ( sequence_options ) ]" in synopsis
    assert (
        "`GENERATED { ALWAYS | BY DEFAULT } AS IDENTITY [ ( sequence_options ) ]`\n:   This clause creates"
        in out
    )


def test_a_passage_cut_from_inside_a_definition_names_it():
    d = doc("postgresql", "sql-createtable.html")
    queries = ["storage parameter fillfactor percentage", "vacuum index cleanup", "temporary table on commit"]
    out = "".join(call("postgresql", "search_in_doc", "sql-createtable.html", q) for q in queries)
    named = 0
    for block in out.split("\n\n## ")[1:]:
        section = d.find(block.split("\n", 1)[0].rsplit(" #", 1)[1]).section
        spans = d.entry_spans(section)
        for m in re.finditer(r"^\[offset (\d+)(?: in (.+) #(\S+))?\]$", block, re.M):
            offset = int(m.group(1))
            inside = [k for k, sp in enumerate(spans) if sp and sp[0] < offset < sp[1]]
            if inside:
                entry = d.sections[section].entries[max(inside, key=lambda k: spans[k][0])]
                assert (m.group(2), m.group(3)) == (entry.name, entry.id), m.group(0)
                named += 1
            else:
                assert m.group(2) is None, m.group(0)
    assert named  # some passages do start inside a definition


def test_the_outline_lists_a_sections_definitions_by_id():
    toc = call("python", "get_doc_toc", "library/re.html")
    line = next(ln for ln in toc.split("\n") if "#functions (" in ln)
    assert "defines #re.{compile, search, match, fullmatch, split, findall, finditer, sub, subn" in line
    assert "91 definitions" in toc.split("\n")[1]


def test_definitions_fold_into_counts_when_the_outline_would_be_long():
    toc = call("postgresql", "get_doc_toc", "sql-createtable.html")
    assert re.search(r"- Parameters #\S+ \([\d,]+\) · 50 definitions", toc)
    assert "definitions shown as counts" in toc


# --- 3. nothing dropped unannounced ---------------------------------------------------------------
def test_sql_grammar_is_kept_when_code_is_left_out():
    out = call("postgresql", "get_doc_section", "sql-createtable.html", "synopsis")
    assert (
        "CREATE [ [ GLOBAL | LOCAL ] { TEMPORARY | TEMP } | UNLOGGED ] TABLE [ IF NOT EXISTS ] table_name"
        in out
    )
    assert int(re.search(r"content_length=(\d+)", out).group(1)) > 3_000


@pytest.mark.usefixtures("no_short_literals")
def test_an_omitted_example_leaves_a_note_and_the_header_says_so():
    fresh = make_tools(str(REAL / "postgresql"))  # not the shared one: its pages render short literals
    out = asyncio.run(fresh.get_doc_section("sql-createtable.html", "SQL-CREATETABLE-EXAMPLES"))
    assert "Create a table with a 2-dimensional array:\n\n[code: 3 lines]\n\n" in out
    assert "code omitted: include_code_blocks=true shows it" in out.split("\n\n", 1)[0]
    full = call(
        "postgresql",
        "get_doc_section",
        "sql-createtable.html",
        "SQL-CREATETABLE-EXAMPLES",
        max_length=0,
        include_code_blocks=True,
    )
    assert "Create a table with a 2-dimensional array:\n\n```\nCREATE TABLE array_int (" in full
    assert "[code:" not in full


# --- 4. tables, signatures and notes that render --------------------------------------------------
def _cells(row: str) -> int:
    return len(re.findall(r"(?<!\\)\|", row)) - 1


def test_a_pipe_inside_a_table_cell_is_escaped():
    md = doc("postgresql", "functions-json.html").markdown()
    row = next(ln for ln in md.split("\n") if "Do any of the strings in the text array exist" in ln)
    assert "`?\\|`" in row and _cells(row) == 1
    regex = next(ln for ln in doc("python", "library/re.html").markdown().split("\n") if "0[xX]" in ln)
    table = [ln for ln in doc("python", "library/re.html").markdown().split("\n") if ln.startswith("|")]
    assert {_cells(ln) for ln in table if "scanf" not in ln} == {2} and "\\|" in regex


def test_a_passage_quoting_table_rows_carries_the_header_row():
    out = call(
        "postgresql", "search_in_doc", "functions-json.html", "do any of the strings exist as top-level keys"
    )
    passage = out.split("[offset ", 1)[1].split("\n", 1)[1]
    assert passage.startswith("| Operator  Description  Example(s) |\n| --- |\n")


def test_older_sphinx_signatures_read_as_code():
    d = doc("django", "ref/models/querysets.html")
    assert "class FilteredRelation(relation_name, *, condition=Q())" in d.markdown()
    assert "*class* `FilteredRelation`" not in d.markdown()


def test_admonitions_keep_their_kind():
    md = doc("django", "ref/models/querysets.html").markdown()
    assert "> **Note:** " in md and "> **Warning:** " in md
    assert not re.search(r"^Note$", md, re.M)


@pytest.mark.parametrize(
    ("site", "page"), [("python", "library/re.html"), ("django", "ref/models/querysets.html")]
)
def test_every_definition_span_starts_on_its_term(site, page):
    d = doc(site, page)
    for ref in d.units():
        if ref.entry < 0:
            continue
        text = d.unit_markdown(ref)
        entry = d.sections[ref.section].entries[ref.entry]
        assert text and not text[0].isspace(), entry.id
        term = text.split("\n", 1)[0].replace("`", "").replace("*", "")
        assert entry.name.replace("`", "").replace("*", "").split("(")[0].split(".")[-1][:8] in term, entry.id


def test_a_three_line_example_is_shown_inline_and_a_longer_one_stays_a_note():
    out = call("postgresql", "get_doc_section", "sql-createtable.html", "SQL-CREATETABLE-EXAMPLES")
    assert "Create a table with a 2-dimensional array:\n\n```\nCREATE TABLE array_int (" in out
    assert "[code: 8 lines]" in out
