"""Shared fixtures: a real HTTP server on 127.0.0.1 serving fixtures/, and one-line tool calls."""

from __future__ import annotations

import asyncio
import functools
import http.server
import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest
from pg_fixtures import postgres_server, postgres_url  # noqa: F401  (fixtures of the `postgres` tests)

from docs_mcp.cli.measure import model_view  # noqa: F401  (tests import it from here)
from docs_mcp.fetch.sources import SourceSet
from docs_mcp.settings import Settings
from docs_mcp.tools.docs import DocsTools

HOSTILE = Path(__file__).resolve().parent / "hostile"
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SITE = FIXTURES / "site"
#: Two benchmark questions over fixtures/site (each in its full and terse form), for the benchmark scripts' tests.
SITE_QUESTIONS: list[dict] = [
    {
        "id": "fx-001",
        "query": "which time zone applies to naive timestamps when loading a series",
        "terse": "tidepool.load naive timestamps tz",
        "page": "sphinx.html",
        "section": "Loading data",
        "needles": ["naive timestamps are interpreted as UTC"],
        "code": False,
        "kind": "sentence",
    },
    {
        "id": "fx-002",
        "query": "environment variable naming the configuration file",
        "terse": "config file env var",
        "page": "docbook.html",
        "section": "1.2.1. The Configuration File",
        "needles": ["from the file named by the environment variable TIDEPOOL_CONFIG"],
        "code": False,
        "kind": "sentence",
    },
]
SIZES: dict[tuple[str, str], int] = {}  # (tool, fixture) -> chars; printed at the end of the run


@pytest.fixture
def no_short_literals(monkeypatch: pytest.MonkeyPatch) -> None:
    """Short code blocks are left out like any other (the short-literals mechanism ablated): marker tests."""
    from docs_mcp import settings

    monkeypatch.setattr(settings, "ABLATED", settings.ABLATED | {"short-literals"})


@pytest.fixture
def lexical_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lexical ranker alone (no semantic model): for tests of a lexical mechanism on a three-page site, where
    the semantic blend's z-scores over three pages would decide the order instead (tested on its own)."""
    from docs_mcp import settings

    monkeypatch.setattr(settings, "SEMANTIC_MODEL", "off")
    monkeypatch.setenv("DOCS_MCP_SEMANTIC_MODEL", "off")  # parsing workers started afresh read it


class FixtureHandler(http.server.SimpleHTTPRequestHandler):
    """Static files plus the misbehaviours tests need (slow, errors, redirects, non-HTML, rate limits)."""

    hits: ClassVar[dict[str, int]] = {}

    def log_message(self, *args) -> None:  # keep test output clean
        pass

    def do_GET(self) -> None:
        FixtureHandler.hits[self.path] = FixtureHandler.hits.get(self.path, 0) + 1
        path = self.path.split("?", 1)[0]
        if self.path == "/guide/lang.html":  # a page that redirects to itself with a query (a language pick)
            return self._redirect("/guide/lang.html?lang=en")
        special = {
            "/_slow.html": self._slow,
            "/_500.html": lambda: self._status(500),
            "/_429.html": self._rate_limited,
            "/_doc.pdf": self._pdf,
            "/_redirect-out.html": lambda: self._redirect("http://elsewhere.invalid/page.html"),
            "/_redirect-in.html": lambda: self._redirect("/sphinx.html"),
        }.get(path)
        if special:
            special()
        else:
            super().do_GET()

    def _slow(self) -> None:
        time.sleep(2)
        self._status(200, b"<html><body><h1>late</h1></body></html>")

    def _rate_limited(self) -> None:
        n = FixtureHandler.hits[self.path]
        if n % 2 == 1:
            self.send_response(429)
            self.send_header("Retry-After", "0")
            self.end_headers()
        else:
            self._status(
                200,
                b"<html><body><main><h1>Rate limited page</h1><p>"
                + b"text " * 60
                + b"</p></main></body></html>",
            )

    def _pdf(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/pdf")
        self.end_headers()
        self.wfile.write(b"%PDF-1.4")

    def _redirect(self, to: str) -> None:
        self.send_response(302)
        self.send_header("Location", to)
        self.end_headers()

    def _status(self, code: int, body: bytes = b"error") -> None:
        self.send_response(code)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class QuietServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        pass  # clients that time out or stop reading (size limit tests) are expected here


class LocalSite:
    """A directory served on an ephemeral loopback port."""

    def __init__(self, directory: Path):
        self.directory = directory
        handler = functools.partial(FixtureHandler, directory=str(directory))
        self.httpd = QuietServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="session")
def site() -> Iterator[LocalSite]:
    """fixtures/site on 127.0.0.1, for the whole run."""
    s = LocalSite(SITE)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def site_index_cache(site, tmp_path_factory) -> Path:
    """A cache folder whose index holds the fixture site, built once per module by `docslice index`."""
    from docs_mcp.cli.main import main

    cache = tmp_path_factory.mktemp("indexed-cache")
    with pytest.raises(SystemExit) as exc:
        main(["index", "--source", site.url, "--cache-dir", str(cache), "--workers", "1"])
    assert exc.value.code == 0
    return cache


@pytest.fixture
def site_copy(tmp_path: Path) -> Iterator[LocalSite]:
    """A private, mutable copy of fixtures/site served on its own port."""
    root = tmp_path / "site"
    shutil.copytree(SITE, root)
    s = LocalSite(root)
    yield s
    s.stop()


def make_tools(*sources: str, **settings) -> DocsTools:
    """DocsTools over the given --source values (test settings: short timeouts)."""
    settings.setdefault("read_timeout", 1.0)
    settings.setdefault("connect_timeout", 1.0)
    return DocsTools(SourceSet.from_specs(list(sources)), Settings(**settings))


async def ranked_in_folder(folder: Path, cache: Path, query: str, limit: int = 5) -> list[str]:
    """Index a folder of pages in process (one worker) and rank them for a query: the hits' addresses."""
    from docs_mcp.cli.app import App
    from docs_mcp.cli.arguments import parser
    from docs_mcp.store.interface import Scope

    args = ["serve", "--source", f"docs={folder}", "--cache-dir", str(cache), "--no-index"]
    app = App(parser().parse_args(args), workers=1)
    try:
        await app.indexer.run()
    finally:
        await app.fetcher.aclose()
    try:
        return [hit.url for hit in app.search.ranker.search(query, limit, Scope.of(app.sources.sources))]
    finally:
        app.index.close()


def run(coro):
    """Run a coroutine to completion (tests stay synchronous and readable)."""
    return asyncio.run(coro)


async def call(server, name: str, **args):
    """One tool call through the in-process MCP client, as Claude Code makes it."""
    from mcp import Client

    async with Client(server, mode="legacy") as client:
        return await client.call_tool(name, args)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test under tests/hostile/ is `hostile`: one rule here, not a marker per file to forget."""
    for item in items:
        if item.path.is_relative_to(HOSTILE):
            item.add_marker(pytest.mark.hostile)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """An xdist worker hands the sizes it measured to the controller, which prints the table."""
    output = getattr(session.config, "workeroutput", None)  # set on xdist workers only
    if output is not None:
        output["sizes"] = [[tool, page, chars] for (tool, page), chars in SIZES.items()]


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    """The controller gathers each finished worker's sizes (an xdist hook: unknown without the plugin)."""
    for tool, page, chars in getattr(node, "workeroutput", {}).get("sizes", []):
        SIZES[(tool, page)] = chars


def pytest_terminal_summary(terminalreporter) -> None:
    """Print the per-tool, per-fixture response sizes measured by the context budget tests."""
    if not SIZES:
        return
    tools = sorted({t for t, _ in SIZES})
    pages = sorted({p for _, p in SIZES})
    tr = terminalreporter
    tr.section("context budget: chars the model sees per tool and fixture")
    width = max(len(p) for p in pages) + 2
    tr.write_line("fixture".ljust(width) + "".join(t.rjust(22) for t in tools))
    for p in pages:
        cells = "".join((f"{SIZES[(t, p)]:,}" if (t, p) in SIZES else "-").rjust(22) for t in tools)
        tr.write_line(p.ljust(width) + cells)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _no_remembered_sources(monkeypatch) -> None:
    """A developer's own $DOCSLICE_SOURCE (or its old name) must not reach the tests (nor the programs they
    start), nor a $DOCSLICE_* that would win over the $DOCS_MCP_* tests set."""
    for name in ("SOURCE", "CACHE_DIR", "INDEX_URL", "TOKEN", "SEMANTIC_MODEL", "ABLATE"):
        monkeypatch.delenv(f"DOCSLICE_{name}", raising=False)
    monkeypatch.delenv("DOCS_MCP_SOURCE", raising=False)


@pytest.fixture(autouse=True)
def _no_user_cache(monkeypatch, tmp_path_factory) -> None:
    """No test reads or writes the user's cache folder (a test that gives no --cache-dir, or a program it
    starts, uses this one): an index a newer docslice left there made a replica under test unready."""
    if "DOCS_MCP_CACHE_DIR" not in os.environ:
        monkeypatch.setenv("DOCS_MCP_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "user-cache"))
