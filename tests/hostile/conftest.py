"""Fixtures of the hostile-origin suite: the scripted origin, two canaries, and tools with short deadlines."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from docs_mcp.crawl.indexer import Indexer
from docs_mcp.fetch.fetching import Fetcher
from docs_mcp.fetch.sources import SourceSet
from docs_mcp.settings import Settings
from docs_mcp.store.interface import Scope
from docs_mcp.store.sqlite.store import SiteIndex
from docs_mcp.tools.docs import DocsTools

from .origin import DISCOVERY_ABOVE_ROOT, ROOT, Behaviour, Server, docs_site, page, static

FIXTURE_SITE = Path(__file__).resolve().parents[2] / "fixtures" / "site"


def docslice(cache: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m docs_mcp --source fixtures/site --cache-dir CACHE ARGS…` (environment `env` added), its output
    as text."""
    import os

    command = [sys.executable, "-m", "docs_mcp", "--source", str(FIXTURE_SITE), "--cache-dir", str(cache)]
    return subprocess.run(
        [*command, *args], capture_output=True, text=True, timeout=120, env={**os.environ, **(env or {})}
    )


#: Test deadlines: short, so a misbehaving origin costs seconds, not the 30 s default.
DEADLINE = 2.0
READ_TIMEOUT = 1.0


def canary_routes() -> dict[str, Behaviour]:
    """What a canary answers, were it ever asked: rules and sitemaps that would do harm if obeyed."""
    return {
        "/robots.txt": static(b"User-agent: *\nDisallow: /\n", "text/plain"),
        "/sitemap.xml": static(
            b"<urlset><url><loc>/docs/only-in-sitemap.html</loc></url></urlset>", "text/xml"
        ),
        "*": static(page("CANARY: a request left the roots")),
    }


@pytest.fixture(scope="session")
def canary() -> Iterator[Server]:
    s = Server("127.0.0.1", canary_routes())
    yield s
    s.stop()


@pytest.fixture(scope="session")
def alt_canary() -> Iterator[Server]:
    """A canary on another loopback address (127.0.0.2): another host, as far as URLs go."""
    s = Server("127.0.0.2", canary_routes())
    yield s
    s.stop()


@pytest.fixture(autouse=True)
def no_request_reaches_a_canary(canary: Server, alt_canary: Server) -> Iterator[None]:
    """Every hostile test also asserts that nothing it did reached a canary."""
    canary.httpd.recorder.clear()
    alt_canary.httpd.recorder.clear()
    yield
    assert canary.requests == [], f"requests reached the canary: {canary.requests[:5]}"
    assert alt_canary.requests == [], f"requests reached 127.0.0.2: {alt_canary.requests[:5]}"


@pytest.fixture
def make_origin(canary: Server, alt_canary: Server) -> Iterator[Callable[..., Server]]:
    """A fresh hostile origin: the docs site's routes plus `extra` ones (robots.txt, sitemaps, …)."""
    started: list[Server] = []

    def make(extra: dict[str, Behaviour] | None = None) -> Server:
        s = Server("127.0.0.1")
        s.routes.update(docs_site(s.url, canary.url, alt_canary.url))
        s.routes.update(extra or {})
        started.append(s)
        return s

    yield make
    for s in started:
        s.stop()


@pytest.fixture
def origin(make_origin) -> Server:
    return make_origin()


def outside_root(server: Server) -> list[str]:
    """Requests the origin understood as outside /docs/ (robots.txt at the host root excepted)."""
    return [p for p in server.requests if not p.startswith(ROOT) and p not in DISCOVERY_ABOVE_ROOT]


def hostile_settings(**settings) -> Settings:
    """Short timeouts and deadline, a 1 MB body limit."""
    settings.setdefault("read_timeout", READ_TIMEOUT)
    settings.setdefault("connect_timeout", 1.0)
    settings.setdefault("deadline", DEADLINE)
    settings.setdefault("max_body_bytes", 1_000_000)
    # Unknown settings are dropped, so the suite also runs against versions without them (to show what it
    # catches there).
    return Settings(**{k: v for k, v in settings.items() if k in Settings.__dataclass_fields__})


def hostile_tools(*sources: str, **settings) -> DocsTools:
    return DocsTools(SourceSet.from_specs(list(sources)), hostile_settings(**settings))


def indexer_for(cache: Path, *sources: str, **settings) -> Indexer:
    """An Indexer over `sources` with its own index file in `cache` (one parsing worker: no processes)."""
    spec = SourceSet.from_specs(list(sources))
    conf = hostile_settings(**settings)
    return Indexer(spec, conf, Fetcher(spec, conf), SiteIndex(cache / "index.sqlite"), workers=1)


def indexed(indexer: Indexer) -> set[str]:
    """Keys of every page the indexer's index holds."""
    return {p.key for p in indexer.index.pages(Scope.of(indexer.sources.sources))}
