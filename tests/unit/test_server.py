"""server: the boundary's last guards (cap, encodability), input checks, and the stdio JSON repair."""

from __future__ import annotations

import json
import logging

import pytest
from conftest import call, make_tools, model_view

from docs_mcp.transport.server import build_server, repair_json_line

pytestmark = pytest.mark.anyio


class Overlong:
    """A DocsTools whose get_doc_content answers far over the cap: what a bug would do."""

    def __init__(self, tools):
        self._tools = tools

    def __getattr__(self, name):
        return getattr(self._tools, name)

    async def get_doc_content(self, *args) -> str:
        return ("A sentence of a page that goes on. " * 40 + "\n\n") * 200 + "\ud800"


async def test_an_answer_over_the_cap_is_cut_at_a_boundary_and_logged_as_a_bug(site, caplog):
    tools = make_tools(site.url)
    server = build_server(Overlong(tools))
    with caplog.at_level(logging.ERROR, logger="docs_mcp"):
        res = await call(server, "get_doc_content", url="seed.html")
    text = model_view(res)
    assert len(text) <= tools.cap + 1_000
    assert "final guard" in text and "\ud800" not in text
    assert any("bug:" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('{"a":"x\\ud800y"}', "x\ufffdy"),
        ('{"a":"\\udc00"}', "\ufffd"),
        ('{"a":"\\ud83d\\ude00"}', "😀"),  # a pair stays
        ('{"a":"\\\\ud800"}', "\\ud800"),  # an escaped backslash, then text
        ('{"a":"\\u0041"}', "A"),
    ],
)
def test_repair_json_line_replaces_only_lone_surrogate_escapes(line, expected):
    assert json.loads(repair_json_line(line))["a"] == expected
