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
from .indexfile import open_index
from .progress import Builds, Progress
from .search import SiteSearch, SourceStatus
from .semantic import active_model
from .sources import SourceSet
from .tools import DocsTools

if TYPE_CHECKING:
    from .indexer import Indexer

#: Seconds the server waits before indexing, so the handshake is not slowed by imports and parsing.
BACKGROUND_DELAY = 1.0


def settings_from(args: argparse.Namespace) -> C.Settings:
    return C.Settings(
        max_chars=max(1000, args.max_chars),
        cache_size=args.cache_size,
        cache_ttl=args.cache_ttl,
        max_body_bytes=args.max_body_bytes,
        read_timeout=args.timeout,
        deadline=max(0.1, args.deadline),
        crawl_limit=args.crawl_limit,
        concurrency=max(1, args.concurrency),
        index_ttl_days=args.index_ttl_days,
        cache_dir=args.cache_dir or C.default_cache_dir(),
        auto_index=not getattr(args, "no_index", False),
    )


class App:
    """Everything one process needs, wired once: sources, fetcher, index, indexer, tools.

    A damaged index file is moved aside and rebuilt; an index that cannot be used at all (an unwritable
    cache dir, a newer version's file) leaves `index` and `search` None: pages are still served, without
    site search, and `index_notice` says why.
    """

    def __init__(self, args: argparse.Namespace, workers: int | None = None):
        if not args.source:
            raise DocsMCPError("no --source given: pass a docs URL (https://…/docs/) or a local folder")
        self.settings = settings_from(args)
        active_model()  # a misspelt DOCS_MCP_SEMANTIC_MODEL fails here, not in every search
        self.sources = SourceSet.from_specs(args.source)
        self.fetcher = Fetcher(self.sources, self.settings)
        self.builds = Builds()
        opened = open_index(self.settings.cache_dir / "index.sqlite", self.settings.index_ttl_days * 86400)
        self.index, self.index_notice, self.index_damaged = opened.index, opened.notice, opened.damaged
        self.search = SiteSearch(self.index, self.sources, self.builds) if self.index is not None else None
        self.workers = workers
        self.tools = DocsTools(self.sources, self.settings, self.fetcher, self.search, store=self.search)
        if self.index is None:
            self.tools.search_note = f"site search is off: {self.index_notice}"

    @cached_property
    def indexer(self) -> Indexer:
        # Imported on first use: the parsing stack is not needed to answer initialize and tools/list.
        from .indexer import Indexer

        if self.index is None:
            raise DocsMCPError(self.index_notice)
        return Indexer(self.sources, self.settings, self.fetcher, self.index, self.workers, self.builds)


class ProgressBar:
    """pages done/total, rate and ETA on stderr; plain lines when stderr is not a terminal."""

    def __init__(self, stream=sys.stderr):
        self.stream = stream
        self.tty = stream.isatty()
        self.last = 0.0

    def __call__(self, p: Progress) -> None:
        now = time.monotonic()
        final = p.finished is not None
        if p.waiting and not final:
            self.stream.write(
                f"{p.source}: waiting for another docslice process (pid {p.waiting}) building this source; "
                "its pages will then be fresh\n"
            )
            self.stream.flush()
            return
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
    if p.unwritten:
        parts.append(f"{p.unwritten:,} not stored")
    text = f"{p.source}: {p.done:,} pages via {p.method} in {p.elapsed:.1f}s — " + ", ".join(parts)
    for err in p.errors[:5]:
        text += f"\n  ! {err}"
    if len(p.errors) > 5:
        text += f"\n  … and {len(p.errors) - 5} more"
    return text


def verdict(p: Progress) -> str:
    """Why a build did not do its job (the `index` command then exits 1), or "" when it did."""
    why = p.cause or (p.detail if p.failed else "")
    if not p.pages:
        return f"{p.source}: no page indexed from {p.root}" + (f": {why}" if why else "")
    if not p.reached:
        return f"{p.source}: unreachable ({why}); the {p.pages:,} pages indexed before are kept"
    if p.unwritten:
        return f"{p.source}: {p.unwritten:,} pages could not be stored in the index"
    return ""


def build_line(p: Progress) -> str:
    """One line on a finished build, for the server's stderr: pages, failures, the first error."""
    line = (
        f"{p.source}: {p.pages:,} pages indexed · {p.fetched:,} fetched, {p.not_modified + p.fresh:,} unchanged, "
        f"{p.failed:,} failed in {p.elapsed:.1f}s"
    )
    problem = verdict(p)
    if problem:
        return f"{line} · {problem.partition(': ')[2]}"
    return f"{line} · first error: {p.detail}" if p.detail else line


def start_line(state: SourceStatus, auto_index: bool) -> str:
    """One line per source when the server starts: what it serves, and what happens next."""
    src = state.source
    head = f"{src.name} ({src.root}): "
    if state.pages:
        head += f"{state.pages:,} pages indexed, newest fetched {_day(state.newest)}"
    else:
        head += "no page indexed yet"
    problem = state.problem()
    if problem:
        head += f"; last build: {problem.split(': ', 1)[1]}"
    elif state.last is not None and state.last.failed:
        head += f"; last build: {state.last.failed:,} failed ({state.last.error})"
    if auto_index:
        return (
            head + "; refreshing in the background" if state.pages else head + "; building in the background"
        )
    return head + ("" if state.pages else "; --no-index: run `docslice index` to build it")


def _day(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(ts)) if ts else "never"


def say(line: str) -> None:
    """One status line on stderr (the MCP protocol owns stdout)."""
    print(f"{program()}: {line}", file=sys.stderr, flush=True)


async def _index(args: argparse.Namespace) -> int:
    app = App(args, args.workers)
    if app.index_notice:
        say(app.index_notice)
    if app.index is None:
        return 1
    try:
        reports = await app.indexer.run(refresh=args.refresh, on_progress=ProgressBar())
    finally:
        await app.tools.aclose()
    for r in reports:
        print(summary(r))
    print(
        f"index: {app.index.page_count():,} pages, {app.index.section_count():,} sections in {app.index.path}"
    )
    problems = [v for v in map(verdict, reports) if v]
    for problem in problems:
        say(problem)
    if app.index_damaged:
        say(app.index_notice)  # repeated last: the run succeeded, but the old index was lost
    return 1 if problems or app.index_damaged else 0


async def index_if_empty(app: App) -> None:
    """Commands that search index empty sources first, showing progress on stderr."""
    if app.index_notice:
        say(app.index_notice)
    if app.index is None:
        return
    from .index import Scope

    empty = [s for s in app.sources.sources if not app.index.page_count(Scope.of([s]))]
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
    if app.index_notice:
        say(app.index_notice + ("" if app.index is not None else "; serving pages without site search"))
    if app.search is not None and app.settings.auto_index:
        # Searches say "building" from the first second, not "the index is empty".
        app.builds.announce([s.root for s in app.sources.sources])

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
    """Say what each source has, warm the index, then build empty sources and refresh stale pages while the
    server answers. (Runs as the server starts: over HTTP, after the address is announced.)"""
    if app.search is None:
        return
    for state in app.search.states(newest=True):
        say(start_line(state, app.settings.auto_index))
    await asyncio.sleep(BACKGROUND_DELAY)  # let the client's initialize and tools/list go first
    try:
        await asyncio.to_thread(app.search.warm)
        if app.settings.auto_index:

            def after_each(p: Progress) -> None:
                if p.finished is not None:
                    say(build_line(p))

            await app.indexer.run(on_progress=after_each, background=True)
    except Exception as exc:  # the server must keep serving even if indexing fails
        logging.getLogger("docs_mcp").exception("background indexing failed")
        say(f"background indexing failed: {exc.__class__.__name__}: {exc}")
    finally:
        app.builds.settle()


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
