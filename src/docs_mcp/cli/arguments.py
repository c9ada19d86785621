"""The command line's grammar: the commands, their options, and shared options before or after the command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docs_mcp import __version__
from docs_mcp import settings as C

COMMANDS = ("serve", "index", "search", "toc", "section", "find", "read", "measure", "agent")
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
    Shared(
        "--deadline",
        C.DEADLINE,
        f"total seconds per request and per tool call, then it is stopped (default {C.DEADLINE:g})",
        float,
    ),
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

    top = CommandLine(
        prog=program(),
        allow_abbrev=False,
        description="Documentation for AI coding agents, one section at a time. "
        "Without a command, `serve` is assumed.",
    )
    top.add_argument("--version", action="version", version=f"docslice {__version__}")
    _common(top, _TOP)
    sub = top.add_subparsers(dest="command", metavar="COMMAND", parser_class=argparse.ArgumentParser)
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
        help="bearer token every HTTP request must carry (default: $DOCS_MCP_TOKEN); other local users "
        "can read it in the process list: prefer --token-file",
    )
    serve.add_argument(
        "--token-file", metavar="PATH", type=Path, default=None, help="read the bearer token from this file"
    )
    serve.add_argument(
        "--allowed-host",
        metavar="NAME[:PORT]",
        action="append",
        default=[],
        help="a host name HTTP requests may be addressed to besides the address served on (a name behind a "
        "proxy); repeatable",
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


class CommandLine(argparse.ArgumentParser):
    """The top-level parser: no command means `serve`; shared options merge from both sides of the command."""

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        argv = list(sys.argv[1:] if args is None else args)
        if not _has_command(self, argv) and not {"-h", "--help", "--version"} & set(argv):
            argv = ["serve", *argv]
        ns = super().parse_args(argv, namespace)
        if ns.command is None:
            self.error("a command is required")
        ns.given = set()
        for o in SHARED:
            top, own = getattr(ns, _TOP + o.dest, None), getattr(ns, o.dest, None)
            if hasattr(ns, _TOP + o.dest):
                delattr(ns, _TOP + o.dest)
            value = own if own is not None else top
            if o.flag == "--source":  # repeatable: roots given before and after the command all count
                value = [*(top or []), *(own or [])]
            if top is not None or own is not None:
                ns.given.add(o.dest)
            setattr(ns, o.dest, value if value is not None else o.default)
        return ns


def parse(argv: list[str]) -> argparse.Namespace:
    """Parse a command line: shared options before or after the command; no command means `serve`."""
    return parser().parse_args(argv)


def _max_length(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--max-length",
        type=int,
        default=C.DEFAULT_MAX_LENGTH,
        help=f"content chars (default {C.DEFAULT_MAX_LENGTH}; 0 = the hard cap)",
    )


def _start(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--start", type=int, default=0, help="offset to start from (a next_start_index or a passage offset)"
    )


def _code(p: argparse.ArgumentParser) -> None:
    p.add_argument("--code", action="store_true", help="include code blocks (include_code_blocks)")


def add_tool_commands(command: Callable[[str, str], argparse.ArgumentParser]) -> None:
    """search, toc, section, find, read: one parser each, with the tool's own options."""
    p = command("search", "search the documentation site(s), as search_docs")
    p.add_argument("query")
    p.add_argument("--max-results", type=int, default=C.DEFAULT_MAX_RESULTS, help=f"hits, 1-{C.MAX_RESULTS}")
    p.add_argument("--headings", action="store_true", help="add each page's headings (include_headings)")
    p.add_argument("--source-name", metavar="NAME", default=None, help="search only this named source")
    p = command("toc", "a page's outline with section ids and sizes, as get_doc_toc")
    p.add_argument("url", help="page URL or path under a source")
    p = command("section", "one section of a page, as get_doc_section")
    p.add_argument("url", help="page URL or path under a source")
    p.add_argument("section_id", metavar="ID", help="section id (from toc or a url's #fragment) or heading")
    _max_length(p)
    _start(p)
    _code(p)
    p = command("find", "the sections of one page that best match a query, as search_in_doc")
    p.add_argument("url", help="page URL or path under a source")
    p.add_argument("query")
    p.add_argument(
        "--max-sections", type=int, default=C.DEFAULT_MAX_SECTIONS, help=f"sections, 1-{C.MAX_SECTIONS}"
    )
    _max_length(p)
    _code(p)
    p = command("read", "a whole page as markdown, one window at a time, as get_doc_content")
    p.add_argument("url", help="page URL or path under a source")
    _max_length(p)
    _start(p)
    _code(p)
