"""serve --http: streamable HTTP at /mcp through the SDK's client: token, loopback default, many sessions."""

from __future__ import annotations

import os
import queue
import random
import re
import subprocess
import sys
import threading
from collections.abc import Iterator

import anyio
import httpx
import pytest
from conftest import SITE, FixtureHandler

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parse
from docs_mcp.cli.main import main

#: Each test starts a server process or twenty client sessions.
pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.timeout(180)]

TOKEN = "test-token-0123456789abcdef"
QUERY = "harmonic constituents fitted by least squares"


class Served:
    """`python -m docs_mcp serve --http …` in a subprocess; its URL read from the line it prints."""

    def __init__(self, *args: str, env: dict[str, str] | None = None):
        environ = {k: v for k, v in os.environ.items() if k != "DOCS_MCP_TOKEN"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "docs_mcp", "serve", *args],
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            env={**environ, **(env or {})},
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._drain, daemon=True).start()  # a full stderr pipe would block it
        self.announcement = self.lines.get(timeout=60)
        while "serving MCP" not in self.announcement:  # warnings come first (--token on the command line)
            self.announcement = self.lines.get(timeout=60)
        found = re.search(r"http://\S+/mcp", self.announcement)
        assert found, self.announcement
        self.url = found.group(0)

    def _drain(self) -> None:
        for line in self.proc.stderr:
            self.lines.put(line)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


def client(url: str, token: str | None = TOKEN):
    """The SDK's client over its streamable HTTP transport, sending the bearer token if given."""
    from mcp import Client
    from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else None
    transport = streamable_http_client(url, http_client=create_mcp_http_client(headers=headers))
    return Client(transport, mode="legacy")


@pytest.fixture(scope="module")
def with_token(site, site_index_cache) -> Iterator[Served]:
    """A server that takes its token from DOCS_MCP_TOKEN, over the indexed fixture site."""
    served = Served(
        "--http",
        "127.0.0.1:0",
        "--source",
        site.url,
        "--cache-dir",
        str(site_index_cache),
        "--no-index",
        env={"DOCS_MCP_TOKEN": TOKEN},
    )
    yield served
    served.stop()


async def test_a_port_alone_serves_on_loopback_without_a_token(tmp_path):
    served = Served("--http", "0", "--source", str(SITE), "--cache-dir", str(tmp_path), "--no-index")
    try:
        assert served.url.startswith("http://127.0.0.1:") and "loopback only" in served.announcement
        async with client(served.url, token=None) as c:
            tools = await c.list_tools()
            assert len(tools.tools) == 5
            res = await c.call_tool("get_doc_section", {"url": "seed.html", "section_id": "chart-datum"})
            assert not res.is_error and "### Chart datum" in res.content[0].text
    finally:
        served.stop()


async def test_the_token_is_required_on_every_request(with_token):
    url = with_token.url
    assert "bearer token required" in with_token.announcement
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    accept = {"Accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient() as raw:
        for headers in (
            {},
            {"Authorization": "Bearer wrong"},
            {"Authorization": "Bearer " + TOKEN[:-1] + "X"},  # same length, last character differs
            {"Authorization": TOKEN},  # no scheme
            {"Authorization": "Basic " + TOKEN},
        ):
            res = await raw.post(url, json=init, headers={**accept, **headers})
            assert res.status_code == 401, headers
            assert res.headers["www-authenticate"].startswith("Bearer")
            assert "Authorization: Bearer" in res.json()["error"]
        for method in ("GET", "DELETE"):
            assert (await raw.request(method, url, headers=accept)).status_code == 401
    async with client(url) as c:
        res = await c.call_tool("get_doc_toc", {"url": "seed.html"})
        assert not res.is_error and res.content[0].text.startswith("# Tidal datums")


async def test_a_wrong_token_cannot_open_a_session_with_the_sdk_client(with_token):
    from mcp import Client
    from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

    statuses = []

    async def record(response) -> None:
        statuses.append(response.status_code)

    http = create_mcp_http_client(headers={"Authorization": "Bearer not-the-token-at-all-0000"})
    http.event_hooks["response"].append(record)
    with pytest.raises(Exception):  # noqa: B017  (the SDK wraps the 401 in its own error types)
        with anyio.fail_after(30):
            async with Client(streamable_http_client(with_token.url, http_client=http), mode="legacy") as c:
                await c.list_tools()
    assert statuses and set(statuses) == {401}


def test_a_non_loopback_address_is_refused_without_allow_remote_and_a_token(capsys, monkeypatch):
    monkeypatch.delenv("DOCS_MCP_TOKEN", raising=False)
    for argv, says in (
        (["--http", "0.0.0.0:8000"], "--allow-remote"),
        (["--http", "192.0.2.1:8000"], "--allow-remote"),
        (["--http", "0.0.0.0:8000", "--allow-remote"], "needs a bearer token"),
        (["--http", "0.0.0.0:8000", "--allow-remote", "--token", "short"], "at least 16"),
        (["--allow-remote"], "--http only"),
    ):
        with pytest.raises(SystemExit) as exc:
            main(["serve", *argv, "--source", str(SITE)])
        assert exc.value.code == 2, argv
        assert says in capsys.readouterr().err, argv


CALLS = [
    ("search_docs", {"query": "tidal datum"}),
    ("search_docs", {"query": QUERY, "max_results": 3}),
    ("get_doc_toc", {"url": "seed.html"}),
    ("get_doc_toc", {"url": "sphinx.html"}),
    ("get_doc_section", {"url": "seed.html", "section_id": "chart-datum"}),
    ("get_doc_section", {"url": "sphinx.html", "section_id": "resampling", "max_length": 500}),
    ("search_in_doc", {"url": "big-reference.html", "query": QUERY}),
    ("search_in_doc", {"url": "sphinx.html", "query": "resample to fixed intervals"}),
    ("get_doc_content", {"url": "big-reference.html", "start_index": 5000}),
    ("get_doc_content", {"url": "seed.html"}),
]


async def test_twenty_concurrent_sessions_of_twenty_mixed_calls_get_correct_results(
    with_token, site, site_index_cache
):
    # What each call must return: the library's own answer over the same sources and index.
    app = App(parse(["serve", "--source", site.url, "--cache-dir", str(site_index_cache), "--no-index"]))
    expected = {}
    for i, (tool, arguments) in enumerate(CALLS):
        expected[i] = await getattr(app.tools, tool)(**arguments)
    await app.tools.aclose()
    assert "1. API reference" in expected[1] and "#resampling-with-tidal-harmonics" in expected[1]
    results: dict[tuple[int, int], tuple[int, str]] = {}

    async def session(n: int) -> None:
        order = [i for i in range(len(CALLS)) for _ in range(2)]
        random.Random(n).shuffle(order)
        async with client(with_token.url) as c:
            for k, i in enumerate(order):
                tool, arguments = CALLS[i]
                # repeat: the text itself, not the session memory's pointers to what this session was sent.
                again = {"repeat": True} if tool in ("search_in_doc", "get_doc_section") else {}
                res = await c.call_tool(tool, {**arguments, **again})
                assert not res.is_error, res.content[0].text
                results[(n, k)] = (i, res.content[0].text)

    with anyio.fail_after(120):
        async with anyio.create_task_group() as tg:
            for n in range(20):
                tg.start_soon(session, n)
    assert len(results) == 400
    wrong = [(n, k) for (n, k), (i, text) in results.items() if text != expected[i]]
    assert wrong == []


async def test_sessions_share_one_cache_so_a_page_is_fetched_once(site, tmp_path):
    served = Served(
        "--http",
        "127.0.0.1:0",
        "--source",
        site.url,
        "--cache-dir",
        str(tmp_path),
        "--no-index",
        "--token",
        TOKEN,
    )
    before = FixtureHandler.hits.get("/docbook.html", 0)
    try:

        async def session() -> None:
            async with client(served.url) as c:
                res = await c.call_tool("get_doc_toc", {"url": "docbook.html"})
                assert not res.is_error and "#TIDE-INSTALL" in res.content[0].text

        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                for _ in range(20):
                    tg.start_soon(session)
    finally:
        served.stop()
    assert FixtureHandler.hits.get("/docbook.html", 0) - before == 1
