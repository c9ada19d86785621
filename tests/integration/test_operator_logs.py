"""Logs an operator reads (issue 45, item 8): with DOCSLICE_LOG_FORMAT each stderr line carries its UTC time
(`utc`) or is one JSON object (`json`); a replica logs its start and its stop, and with DOCSLICE_LOG_CALLS one
line per tool call (tool, milliseconds, outcome)."""

from __future__ import annotations

import contextlib
import json
import queue
import re
import signal

import httpx
import pytest
from test_http import Served

pytestmark = pytest.mark.timeout(120)
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def _served(site, log_format: str) -> tuple[Served, list[str]]:
    """A stateless replica of the fixture site, called once with a good and once with a bad argument, then
    stopped by SIGTERM: its stderr lines."""
    cache_args = ["--source", site.url, "--no-index", "--stateless"]
    env = {"DOCSLICE_LOG_FORMAT": log_format, "DOCSLICE_LOG_CALLS": "1"}
    replica = Served("--http", "127.0.0.1:0", *cache_args, env=env)
    for source in ({}, {"source": "no-such-source"}):
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
        body["params"] = {"name": "search_docs", "arguments": {"query": "tide gauge", **source}}
        assert httpx.post(replica.url, json=body, headers=HEADERS, timeout=30).status_code == 200
    replica.proc.send_signal(signal.SIGTERM)
    replica.proc.wait(timeout=30)
    lines = [replica.announcement.rstrip("\n")]
    with contextlib.suppress(queue.Empty):  # the process ended: its last lines are read within a moment
        while True:
            lines.append(replica.lines.get(timeout=2).rstrip("\n"))
    return replica, lines


def test_json_lines_carry_utc_times_a_start_a_stop_and_each_call(site):
    _, lines = _served(site, "json")
    records = [json.loads(line) for line in lines if line]  # every line is one JSON object
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", r["time"]) for r in records), records
    messages = [r["message"] for r in records]
    assert any(m.startswith("serving MCP (streamable HTTP) at http://127.0.0.1:") for m in messages)
    assert any(re.fullmatch(r"started: docslice \S+, pid \d+", m) for m in messages), messages
    calls = [m for m in messages if m.startswith("call ")]
    assert re.fullmatch(r"call search_docs \d+ ms ok", calls[0]) and re.fullmatch(
        r"call search_docs \d+ ms error", calls[1]
    ), calls
    assert re.fullmatch(r"stopping after \d+ s \(pid \d+\)", messages[-1]), messages


def test_utc_lines_start_with_their_time(site):
    _, lines = _served(site, "utc")
    assert lines and all(re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z docslice: ", x) for x in lines), (
        lines
    )
