"""Thin pages on a real index: a member stub sharing the question's words ranks below the guide that explains."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ranked_in_folder

from docs_mcp import settings

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

QUERY = "why does an insensitive widget receive no events"
#: Prose of the guide, each section about 100 words, the question's words said once among others.
GUIDE = """# Input handling

## How events reach a widget

When a widget is made insensitive, GTK stops delivering input events to it and to its children: the
controllers attached to an insensitive widget receive no events until it is sensitive again. A widget
can also be left sensitive but skipped by picking, so that the events go to the widget below it instead;
that is what the can-target property is for, and it is the better choice for a decoration on top of
another widget. {filler} {filler}

## Propagation

{filler}

## Grabs

{filler}
"""
FILLER = (
    "Every input event first goes to the toplevel surface, then travels down the hierarchy in the capture "
    "phase and back up in the bubble phase, and each controller on the way may claim it, stop it or let it "
    "pass on to the next one along the path, as its propagation phase and limit say."
)
#: A member stub: a heading and a line per section, the question's words packed close together.
STUB = """# {name}

## Description

Whether the {name} widget is insensitive to events.

## Parameters

widget: a widget.

## Return value

None.
"""


def site(folder: Path) -> None:
    folder.mkdir()
    (folder / "input-handling.md").write_text(GUIDE.format(filler=FILLER), encoding="utf-8")
    for name in ("set_sensitive", "get_sensitive", "is_sensitive", "set_can_target"):
        (folder / f"method.Widget.{name}.md").write_text(STUB.format(name=name), encoding="utf-8")


async def ranked(tmp_path: Path) -> list[str]:
    folder = tmp_path / "docs"
    if not folder.exists():
        site(folder)
    return [url.rsplit("/", 1)[-1] for url in await ranked_in_folder(folder, tmp_path / "c", QUERY)]


async def test_the_guide_that_explains_ranks_above_thin_member_pages(tmp_path):
    names = await ranked(tmp_path)
    assert names[0] == "input-handling.md", names


async def test_without_the_page_kind_signal_a_member_stub_comes_first(tmp_path, monkeypatch):
    monkeypatch.setattr(settings, "ABLATED", frozenset({"page-kind"}))
    names = await ranked(tmp_path)
    assert names[0].startswith("method.Widget."), names
