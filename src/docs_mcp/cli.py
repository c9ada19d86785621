"""Command line: a thin shell over the library (parsing, wiring, serve and index; tools in commands.py)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

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

COMMANDS = ("serve", "index", "search", "toc", "section", "find", "read", "measure", "agent")
#: Seconds the server waits before indexing, so the handshake is not slowed by imports and parsing.
BACKGROUND_DELAY = 1.0
#: Names the console scripts go by; messages use the one that was run.
PROGRAMS = ("docslice", "docs-mcp")
#: The top-level parser keeps shared options under this prefix, so a command's own copy cannot erase them.
_TOP = "top_"


@dataclass(frozen=True)
class Shared:
    """An option every command accepts, before or after the command's name."""

    flag: str
    default: Any
    help: str
    type: Callable[[str], Any] | None = None
    metavar: str | None = None

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")


SHARED = (
    Shared(
        "--source",
        [],
        "documentation root: an http(s) URL prefix or a local folder; NAME= names it; repeatable",
        metavar="[NAME=]URL|DIR",
    ),
    Shared("--max-chars", C.HARD_CAP, f"hard cap per response (default {C.HARD_CAP})", int),
    Shared("--cache-size", C.CACHE_SIZE, "pages kept converted in memory", int),
    Shared("--cache-ttl", C.CACHE_TTL, "seconds a page stays in memory", float),
    Shared(
        "--cache-dir",
        None,
        "where the index lives (default: $DOCS_MCP_CACHE_DIR or the user cache dir)",
        Path,
    ),
    Shared("--max-body-bytes", C.MAX_BODY_BYTES, "largest page accepted", int),
    Shared("--timeout", C.READ_TIMEOUT, "read timeout in seconds", float),
    Shared("--crawl-limit", C.CRAWL_PAGE_LIMIT, "pages per source at most", int),
    Shared("--concurrency", C.CRAWL_CONCURRENCY, "requests at a time per host", int),
    Shared("--index-ttl-days", C.INDEX_TTL_DAYS, "refresh indexed pages older than this", float),
)


def program() -> str:
    """The name this process was started as (docslice or docs-mcp); docslice otherwise."""
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    return name if name in PROGRAMS else PROGRAMS[0]


def _common(p: argparse.ArgumentParser, prefix: str = "") -> None:
    """The shared options; no defaults here (SUPPRESS), so `given` shows what the user typed."""
    group = p.add_argument_group("options shared by every command (before or after its name)")
    for o in SHARED:
        kw: dict[str, Any] = {"dest": prefix + o.dest, "default": argparse.SUPPRESS, "help": o.help}
        if o.flag == "--source":
            kw["action"] = "append"
        else:
            kw["type"] = o.type
        group.add_argument(o.flag, metavar=o.metavar or o.dest.upper(), **kw)


def _command(sub: argparse._SubParsersAction, name: str, summary: str) -> argparse.ArgumentParser:
    """A command's parser: strict about option names (no abbreviations), with the shared options."""
    p = sub.add_parser(name, help=summary, description=summary, allow_abbrev=False)
    _common(p)
    return p


def parser() -> argparse.ArgumentParser:
    from .commands import add_tool_commands

    top = argparse.ArgumentParser(
        prog=program(),
        allow_abbrev=False,
        description="Documentation for AI coding agents, one section at a time. "
        "Without a command, `serve` is assumed.",
    )
    top.add_argument("--version", action="version", version=f"docslice {__version__}")
    _common(top, _TOP)
    sub = top.add_subparsers(dest="command", metavar="COMMAND")
    serve = _command(sub, "serve", "run the MCP server on stdio, or on HTTP with --http (the default)")
    serve.add_argument(
        "--no-index", action="store_true", help="do not build or refresh the site index in the background"
    )
    serve.add_argument(
        "--http",
        metavar="[HOST:]PORT",
        default=None,
        help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio (HOST: 127.0.0.1)",
    )
    serve.add_argument(
        "--allow-remote", action="store_true", help="allow --http on a non-loopback address (needs a token)"
    )
    serve.add_argument(
        "--token",
        default=None,
        help="bearer token every HTTP request must carry (default: $DOCS_MCP_TOKEN)",
    )
    index = _command(sub, "index", "build or refresh the site index, with a progress bar")
    index.add_argument("--refresh", action="store_true", help="revalidate every page, not only stale ones")
    index.add_argument("--workers", type=int, default=None, help="processes for parsing (default: all cores)")
    add_tool_commands(lambda name, summary: _command(sub, name, summary))
    measure = _command(sub, "measure", "what each tool returns for one page, in chars and tokens")
    measure.add_argument("url", help="page URL or path under a source")
    measure.add_argument("--query", default=None, help="question for search_in_doc/search_docs")
    measure.add_argument("--json", action="store_true", help="machine-readable output")
    agent = _command(sub, "agent", "write a Claude Code subagent that alone holds these docs")
    agent.add_argument("name", help="the subagent's name, also its server's (lowercase letters, digits, -)")
    agent.add_argument(
        "--scope",
        choices=("project", "user"),
        default="project",
        help="project: ./.claude/agents/ (default); user: ~/.claude/agents/",
    )
    agent.add_argument(
        "--model", choices=("haiku", "sonnet", "opus", "inherit"), default="haiku", help="default: haiku"
    )
    agent.add_argument("--force", action="store_true", help="replace an existing file")
    agent.add_argument("--print", action="store_true", help="write the file to stdout instead")
    agent.add_argument(
        "--uvx", action="store_true", help="launch the server with uvx instead of this installation's path"
    )
    return top


def _has_command(p: argparse.ArgumentParser, argv: list[str]) -> bool:
    """True when the command line names a command: its first positional word (`serve` has none)."""
    subs = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
    takes_value = {
        flag
        for sp in (p, *subs.choices.values())
        for a in sp._actions
        if a.nargs != 0 and a.option_strings
        for flag in a.option_strings
    }
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--" or not word.startswith("-") or word == "-":
            return True
        i += 2 if word in takes_value else 1
    return False


def parse(argv: list[str]) -> argparse.Namespace:
    """Parse a command line: shared options before or after the command; no command means `serve`."""
    p = parser()
    if not _has_command(p, argv) and not {"-h", "--help", "--version"} & set(argv):
        argv = ["serve", *argv]
    args = p.parse_args(argv)
    if args.command is None:
        p.error("a command is required")
    args.given = set()
    for o in SHARED:
        top, own = getattr(args, _TOP + o.dest, None), getattr(args, o.dest, None)
        if hasattr(args, _TOP + o.dest):
            delattr(args, _TOP + o.dest)
        value = own if own is not None else top
        if o.flag == "--source":  # repeatable: roots given before and after the command all count
            value = [*(top or []), *(own or [])]
        if top is not None or own is not None:
            args.given.add(o.dest)
        setattr(args, o.dest, value if value is not None else o.default)
    return args


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
