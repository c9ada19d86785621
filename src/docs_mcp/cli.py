"""Command line: a thin shell over the library (serve, index, search, measure)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import time
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from . import __version__
from . import config as C
from .errors import DocsMCPError
from .fetching import Fetcher
from .index import SiteIndex
from .search import SiteSearch
from .sources import SourceSet
from .tools import DocsTools

if TYPE_CHECKING:
    from .indexer import Indexer, Progress

COMMANDS = ("serve", "index", "search", "measure")
#: Seconds the server waits before indexing, so the handshake is not slowed by imports and parsing.
BACKGROUND_DELAY = 1.0


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--source",
        action="append",
        default=[],
        metavar="[NAME=]URL|DIR",
        help="documentation root: an http(s) URL prefix or a local folder; repeatable",
    )
    p.add_argument(
        "--max-chars", type=int, default=C.HARD_CAP, help=f"hard cap per response (default {C.HARD_CAP})"
    )
    p.add_argument("--cache-size", type=int, default=C.CACHE_SIZE, help="pages kept converted in memory")
    p.add_argument("--cache-ttl", type=float, default=C.CACHE_TTL, help="seconds a page stays in memory")
    p.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        help="where the index lives (default: $DOCS_MCP_CACHE_DIR or the user cache dir)",
    )
    p.add_argument("--max-body-bytes", type=int, default=C.MAX_BODY_BYTES, help="largest page accepted")
    p.add_argument("--timeout", type=float, default=C.READ_TIMEOUT, help="read timeout in seconds")
    p.add_argument("--crawl-limit", type=int, default=C.CRAWL_PAGE_LIMIT, help="pages per source at most")
    p.add_argument("--concurrency", type=int, default=C.CRAWL_CONCURRENCY, help="requests at a time per host")
    p.add_argument(
        "--index-ttl-days", type=float, default=C.INDEX_TTL_DAYS, help="refresh indexed pages older than this"
    )


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="docs-mcp",
        description="Documentation for AI coding agents, one section "
        "at a time. Without a command, `serve` is assumed.",
    )
    top.add_argument("--version", action="version", version=f"docs-mcp {__version__}")
    sub = top.add_subparsers(dest="command")
    serve = sub.add_parser("serve", help="run the MCP server on stdio (the default command)")
    _common(serve)
    serve.add_argument(
        "--no-index", action="store_true", help="do not build or refresh the site index in the background"
    )
    index = sub.add_parser("index", help="build or refresh the site index, with a progress bar")
    _common(index)
    index.add_argument("--refresh", action="store_true", help="revalidate every page, not only stale ones")
    index.add_argument("--workers", type=int, default=None, help="processes for parsing (default: all cores)")
    search = sub.add_parser("search", help="search the index like search_docs and print the result")
    _common(search)
    search.add_argument("query")
    search.add_argument("--max-results", type=int, default=C.DEFAULT_MAX_RESULTS)
    search.add_argument("--headings", action="store_true", help="include each page's headings")
    measure = sub.add_parser("measure", help="what each tool returns for one page, in chars and tokens")
    _common(measure)
    measure.add_argument("url", help="page URL or path under a source")
    measure.add_argument("--query", default=None, help="question for search_in_doc/search_docs")
    measure.add_argument("--json", action="store_true", help="machine-readable output")
    return top


def settings_from(args: argparse.Namespace) -> C.Settings:
    return C.Settings(
        max_chars=max(1000, args.max_chars),
        cache_size=args.cache_size,
        cache_ttl=args.cache_ttl,
        max_body_bytes=args.max_body_bytes,
        read_timeout=args.timeout,
        crawl_limit=args.crawl_limit,
        concurrency=max(1, args.concurrency),
        index_ttl_days=args.index_ttl_days,
        cache_dir=args.cache_dir or C.default_cache_dir(),
        auto_index=not getattr(args, "no_index", False),
    )


class App:
    """Everything one process needs, wired once: sources, fetcher, index, indexer, tools."""

    def __init__(self, args: argparse.Namespace, workers: int | None = None):
        if not args.source:
            raise DocsMCPError("no --source given: pass a docs URL (https://…/docs/) or a local folder")
        self.settings = settings_from(args)
        self.sources = SourceSet.from_specs(args.source)
        self.fetcher = Fetcher(self.sources, self.settings)
        self.index = SiteIndex(self.settings.cache_dir / "index.sqlite", self.settings.index_ttl_days * 86400)
        self.workers = workers
        self.tools = DocsTools(
            self.sources,
            self.settings,
            self.fetcher,
            SiteSearch(self.index, lambda: self.indexer.progress()),
            store=self.index,
        )

    @cached_property
    def indexer(self) -> Indexer:
        # Imported on first use: the parsing stack is not needed to answer initialize and tools/list.
        from .indexer import Indexer

        return Indexer(self.sources, self.settings, self.fetcher, self.index, self.workers)


class ProgressBar:
    """pages done/total, rate and ETA on stderr; plain lines when stderr is not a terminal."""

    def __init__(self, stream=sys.stderr):
        self.stream = stream
        self.tty = stream.isatty()
        self.last = 0.0

    def __call__(self, p: Progress) -> None:
        now = time.monotonic()
        final = p.finished is not None
        if not final and now - self.last < (0.1 if self.tty else 2.0):
            return
        self.last = now
        total = max(p.discovered, p.done, 1)
        rate = p.done / p.elapsed if p.elapsed > 0 else 0.0
        eta = (total - p.done) / rate if rate > 0 else 0.0
        width = 30
        filled = int(width * p.done / total)
        line = (
            f"{p.source} [{'#' * filled}{'.' * (width - filled)}] {p.done:,}/{total:,} pages "
            f"({p.method}) · {rate:,.1f} pages/s · ETA {eta:,.0f}s"
        )
        if self.tty:
            self.stream.write("\r" + line.ljust(100) + ("\n" if final else ""))
        elif not final:
            self.stream.write(line + "\n")
        self.stream.flush()


def summary(p: Progress) -> str:
    parts = [
        f"{p.fetched:,} fetched",
        f"{p.not_modified:,} unchanged (304)",
        f"{p.fresh:,} still fresh",
        f"{p.removed:,} removed",
        f"{p.failed:,} failed",
    ]
    if p.redirected:
        parts.append(f"{p.redirected:,} redirected")
    if p.robots_skipped:
        parts.append(f"{p.robots_skipped:,} disallowed by robots.txt")
    text = f"{p.source}: {p.done:,} pages via {p.method} in {p.elapsed:.1f}s — " + ", ".join(parts)
    for err in p.errors[:5]:
        text += f"\n  ! {err}"
    if len(p.errors) > 5:
        text += f"\n  … and {len(p.errors) - 5} more"
    return text


async def _index(args: argparse.Namespace) -> int:
    app = App(args, args.workers)
    try:
        reports = await app.indexer.run(refresh=args.refresh, on_progress=ProgressBar())
    finally:
        await app.tools.aclose()
    for r in reports:
        print(summary(r))
    print(
        f"index: {app.index.page_count():,} pages, {app.index.section_count():,} sections in {app.index.path}"
    )
    return 0


async def index_if_empty(app: App) -> None:
    """Commands that search index empty sources first, showing progress on stderr."""
    empty = [s for s in app.sources.sources if not app.index.page_count(s.name)]
    if empty:
        print(f"indexing {', '.join(s.name for s in empty)} first…", file=sys.stderr)
        for r in await app.indexer.run(sources=empty, on_progress=ProgressBar()):
            print(summary(r), file=sys.stderr)


async def _search(args: argparse.Namespace) -> int:
    app = App(args)
    try:
        await index_if_empty(app)
        print(await app.tools.search_docs(args.query, args.max_results, args.headings))
    finally:
        await app.tools.aclose()
    return 0


def _serve(args: argparse.Namespace) -> int:
    from .server import build_server

    app = App(args)

    def start_background():
        return asyncio.create_task(_background(app))

    build_server(app.tools, start_background).run("stdio")
    return 0


async def _background(app: App) -> None:
    """Warm the index, then build empty sources and refresh stale pages while the server answers."""
    log = logging.getLogger("docs_mcp")
    await asyncio.sleep(BACKGROUND_DELAY)  # let the client's initialize and tools/list go first
    await asyncio.to_thread(app.index.warm)
    if not app.settings.auto_index:
        return
    try:
        for r in await app.indexer.run():
            log.info(summary(r))
    except Exception:  # the server must keep serving even if indexing fails
        log.exception("background indexing failed")


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help", "--version")):
        argv.insert(0, "serve")
    args = parser().parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="docs-mcp: %(levelname)s %(message)s"
    )
    try:
        if args.command == "serve":
            code = _serve(args)
        elif args.command == "index":
            code = asyncio.run(_index(args))
        elif args.command == "search":
            code = asyncio.run(_search(args))
        else:
            from .measure import run_measure

            code = asyncio.run(run_measure(App(args), args, index_if_empty))
    except DocsMCPError as exc:
        print(f"docs-mcp: {exc}", file=sys.stderr)
        code = 2
    except KeyboardInterrupt:
        code = 130
    sys.exit(code)
