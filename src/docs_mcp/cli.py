"""Command line: a thin shell over the library (wiring, serve, index; grammar in arguments.py, tools in commands.py)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import time
from functools import cached_property
from typing import TYPE_CHECKING

from . import config as C
from .arguments import parse, program
from .arguments import parser as parser  # the benchmarks and tests build App(parser().parse_args(…))
from .errors import DocsMCPError
from .fetching import Fetcher
from .index import SiteIndex
from .search import SiteSearch
from .sources import SourceSet
from .tools import DocsTools

if TYPE_CHECKING:
    from .indexer import Indexer, Progress

#: Seconds the server waits before indexing, so the handshake is not slowed by imports and parsing.
BACKGROUND_DELAY = 1.0


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


def _serve(args: argparse.Namespace) -> int:
    from .server import build_server

    token = args.token or os.environ.get("DOCS_MCP_TOKEN") or None
    bind = None
    if args.http is not None:
        from .http_transport import check_bind

        bind = check_bind(args.http, args.allow_remote, token)  # before any work: refuse early
    elif args.allow_remote or args.token:
        raise DocsMCPError("--allow-remote and --token apply to --http only (stdio is local by nature)")
    app = App(args)

    def start_background():
        return asyncio.create_task(_background(app))

    server = build_server(app.tools, start_background)
    if bind is None:
        server.run("stdio")
    else:
        from .http_transport import serve_http

        serve_http(
            server, bind, lambda message: print(f"{program()}: {message}", file=sys.stderr, flush=True)
        )
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


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "serve":
        return _serve(args)
    if args.command == "index":
        return asyncio.run(_index(args))
    if args.command == "measure":
        from .measure import run_measure

        return asyncio.run(run_measure(App(args), args, index_if_empty))
    if args.command == "agent":
        from .agent import run_agent

        return asyncio.run(run_agent(App(args), args))
    from .commands import run_tool_command

    return asyncio.run(run_tool_command(App(args), args, index_if_empty))


def main(argv: list[str] | None = None) -> None:
    args = parse(list(sys.argv[1:] if argv is None else argv))
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format=f"{program()}: %(levelname)s %(message)s"
    )
    try:
        code = _dispatch(args)
    except DocsMCPError as exc:
        print(f"{program()}: {exc}", file=sys.stderr)
        code = 2
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        # The reader went away (`… | head`): not an error worth a traceback. Point stdout at devnull so
        # the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 141  # 128 + SIGPIPE, what the shell reports for a program killed by it
    sys.exit(code)
