"""In-page ranking: a section that lists other sections by their titles points at them; it does not answer."""

from __future__ import annotations

import pytest

from docs_mcp.model.document import Document, Section
from docs_mcp.search.in_page.ranking import page_index

FUNCTIONS = ["g_tide_table_new ()", "g_tide_table_lookup ()", "g_tide_table_free ()", "g_tide_gauge_read ()"]


def page(summary: str) -> Document:
    """A gtk-doc-like page: a summary section, then one section per function (its signature left out as code)."""
    rows = [("summary", "Functions", 2, summary)]
    rows += [
        (f"fn{k}", name, 3, f"Tide helper number {k}: it works on the harbour's tables. Since: 2.{k}")
        for k, name in enumerate(FUNCTIONS)
    ]
    sections = tuple(Section(i, t, lv, None, body_md=x, text=x) for i, t, lv, x in rows)
    return Document("p.html", "src", "Tides", sections)


def best(d: Document, query: str) -> str:
    return d.sections[page_index(d).rank(query)[0].index].title


def test_a_summary_listing_the_pages_functions_does_not_outrank_the_function_asked_for():
    d = page(" ".join(f"TideTable * {name}" for name in FUNCTIONS))
    assert best(d, "g_tide_table_lookup ()") == "g_tide_table_lookup ()"


def test_ablated_the_summary_that_says_every_name_wins_as_before(monkeypatch):
    monkeypatch.setattr("docs_mcp.settings.ABLATED", frozenset({"named-sections"}))
    d = page(" ".join(f"TideTable * {name}" for name in FUNCTIONS))
    assert best(d, "g_tide_table_lookup ()") == "Functions"


def summary_score(summary: str) -> float:
    d = page(summary)
    return next(
        s.score for s in page_index(d).rank("g_tide_table_lookup ()") if d.sections[s.index].id == "summary"
    )


@pytest.mark.parametrize("named", [1, 2])
def test_prose_naming_one_or_two_other_sections_keeps_its_words(named, monkeypatch):
    # Only a list of three names or more is a pointer: a paragraph that mentions a function is content.
    prose = "To look a tide up, call " + " and ".join(FUNCTIONS[1 : 1 + named]) + " with the lookup table."
    on = summary_score(prose)
    monkeypatch.setattr("docs_mcp.settings.ABLATED", frozenset({"named-sections"}))
    assert on == summary_score(prose) > 0


def test_a_list_of_three_names_loses_their_words(monkeypatch):
    listing = "See " + ", ".join(FUNCTIONS[:3]) + "."
    on = summary_score(listing)
    monkeypatch.setattr("docs_mcp.settings.ABLATED", frozenset({"named-sections"}))
    assert on < summary_score(listing)


def test_prose_naming_three_functions_among_its_own_words_keeps_them(monkeypatch):
    # GTK's "Mnemonics" names three functions of its page while explaining mnemonics: it is about them.
    prose = (
        "Mnemonics are underlined characters in a tide label, used for keyboard navigation of the harbour "
        "tables. Create one with " + ", ".join(FUNCTIONS[:3]) + "; a mnemonic activates the widget it sits "
        "in, or the one the label points at, so that a keyboard reaches every tide table without a pointer."
    )
    on = summary_score(prose)
    monkeypatch.setattr("docs_mcp.settings.ABLATED", frozenset({"named-sections"}))
    assert on == summary_score(prose) > 0
