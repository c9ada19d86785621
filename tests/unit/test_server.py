"""server: the boundary's last guards (cap, encodability), input checks, and the stdio JSON repair."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time

import pytest
from conftest import call, make_tools, model_view

from docs_mcp.deadline import check
from docs_mcp.errors import DeadlineExceeded
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


class Overtime:
    """A DocsTools whose search_docs works on a thread in short steps, looking at its deadline between them (as
    the ranker does between its stages): what a search on a costly index does."""

    STEPS = 300

    def __init__(self, tools):
        self._tools = tools
        self.steps = 0
        self.stopped: BaseException | None = None
        self.done = threading.Event()

    def __getattr__(self, name):
        return getattr(self._tools, name)

    async def search_docs(self, *args) -> str:
        return await asyncio.to_thread(self._work)

    def _work(self) -> str:
        try:
            for _ in range(self.STEPS):
                time.sleep(0.01)
                self.steps += 1
                check()
            return "finished"
        except BaseException as exc:
            self.stopped = exc
            raise
        finally:
            self.done.set()


async def test_a_call_past_its_deadline_stops_the_work_it_started_on_a_thread(site):
    tools = Overtime(make_tools(site.url, deadline=0.3))
    res = await call(build_server(tools), "search_docs", query="tidal harmonics")
    assert res.is_error and "did not finish within the 0.3s deadline" in model_view(res)
    assert tools.done.wait(10)
    # The thread stopped at its first look past the deadline, not after its 3 s of steps.
    assert isinstance(tools.stopped, DeadlineExceeded) and tools.steps < Overtime.STEPS


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
