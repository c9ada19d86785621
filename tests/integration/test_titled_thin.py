"""Thin pages titled by the query, on a real index: a one-screen annotation page asked for by its title ranks
above the class page that lists it among its members."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ranked_in_folder

from docs_mcp import settings
from docs_mcp.search.site import ranker

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

#: The class page: prose sections of about 100 words, each nested annotation named and described.
CLASS = """# Parameterized

## Overview

The custom runner Parameterized implements parameterized tests. When running a parameterized test class,
instances are created for the cross-product of the test methods and the test data elements. {filler}

## Annotation Type Parameterized.BeforeParam

Annotation for a public static void method which should be executed before evaluating tests with
parameters: Parameterized.BeforeParam methods run once for each set of parameters, before the first test
of that set; a class may have several Parameterized.BeforeParam methods, run in no given order.
{filler}

## Annotation Type Parameterized.AfterParam

Annotation for a public static void method which should be executed after evaluating tests with
parameters: Parameterized.AfterParam methods run once for each set of parameters, after the last test of that set.
{filler}

## Annotation Type Parameters

Annotation for a method which provides the parameters to be injected into the test class constructor.
{filler}
"""
FILLER = (
    "Each instance receives the data through its constructor or through fields, and the runner names every "
    "test after the index of its data element, or after the name pattern the annotation gives, so that a "
    "report tells which set of parameters a failure belongs to and the set can be run again on its own."
)
#: A member page: its title, and a line or two per section.
STUB = """# Parameterized.{name}

## Description

Annotation for a method run {when} each set of parameters.

## Since

4.13
"""


def site(folder: Path) -> None:
    folder.mkdir()
    (folder / "Parameterized.md").write_text(CLASS.format(filler=FILLER), encoding="utf-8")
    for name, when in (("BeforeParam", "before"), ("AfterParam", "after"), ("Parameters", "to provide")):
        (folder / f"Parameterized.{name}.md").write_text(STUB.format(name=name, when=when), encoding="utf-8")


@pytest.fixture(autouse=True)
def lexical(monkeypatch):
    """The lexical ranker, by construction: on four pages the cosine's z-scores say more than the words."""
    monkeypatch.setattr(ranker, "SEMANTIC_WEIGHT", 0.0)


async def ranked(tmp_path: Path, query: str) -> list[str]:
    folder = tmp_path / "docs"
    if not folder.exists():
        site(folder)
    return [url.rsplit("/", 1)[-1] for url in await ranked_in_folder(folder, tmp_path / "c", query)]


async def test_a_thin_page_asked_for_by_its_title_ranks_first(tmp_path):
    names = await ranked(tmp_path, "Parameterized.BeforeParam")
    assert names[0] == "Parameterized.BeforeParam.md", names


async def test_a_thin_page_not_titled_by_the_query_stays_below_the_prose(tmp_path):
    names = await ranked(tmp_path, "method executed before evaluating tests with parameters")
    assert names[0] == "Parameterized.md", names


async def test_without_the_titled_thin_rule_the_class_page_comes_first(tmp_path, monkeypatch):
    monkeypatch.setattr(settings, "ABLATED", frozenset({"titled-thin"}))
    names = await ranked(tmp_path, "Parameterized.BeforeParam")
    assert names[0] == "Parameterized.md", names
