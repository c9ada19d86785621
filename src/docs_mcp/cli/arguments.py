"""The command line's grammar, declared as data: the commands, their options, and the shared options that go
before or after the command. The tool commands' options come from the tools' own declarations (tools/specs.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from docs_mcp import __version__
from docs_mcp import settings as C
from docs_mcp.cli.options import Command, Option, tool_option
from docs_mcp.tools.specs import TOOLS

#: Names the console scripts go by; messages use the one that was run.
PROGRAMS = ("docslice", "docs-mcp")
#: The top-level parser keeps shared options under this prefix, so a command's own copy cannot erase them.
_TOP = "top_"


SHARED = (
    Option(
        "--source",
        [],
        "an http(s) URL root or a local folder of `.html`/`.htm`/`.md`; `NAME=` names it; repeatable",
        metavar="[NAME=]URL|DIR",
        action="append",
        shown_default="`$DOCS_MCP_SOURCE`, else `source` in `.docslice.toml` (see below)",
    ),
    Option("--max-chars", C.HARD_CAP, "the hard cap per response", int, forward=True),
    Option("--cache-size", C.CACHE_SIZE, "converted pages kept in memory (LRU)", int, forward=True),
    Option(
        "--cache-mb",
        C.CACHE_MB,
        "memory the cached pages may take (estimated from their size); the LRU pages go first",
        int,
        forward=True,
    ),
    Option("--cache-ttl", C.CACHE_TTL, "seconds a page stays in memory", float, forward=True),
    Option(
        "--cache-dir",
        None,
        "where `index.sqlite` lives",
        Path,
        shown_default="`$DOCS_MCP_CACHE_DIR` or the user cache dir",
        forward=True,
    ),
    # Not forwarded into a subagent's file (the URL may hold a password): its server reads $DOCS_MCP_INDEX_URL.
    Option(
        "--index-url",
        None,
        "a PostgreSQL index shared by a team (`postgresql://…`; the `postgres` extra) instead of `index.sqlite`",
        shown_default="`$DOCS_MCP_INDEX_URL`, else the SQLite file in the cache dir",
    ),
    Option("--max-body-bytes", C.MAX_BODY_BYTES, "larger pages are refused", int, forward=True),
    Option("--timeout", C.READ_TIMEOUT, "read timeout in seconds (connect: 5)", float, forward=True),
    Option(
        "--deadline",
        C.DEADLINE,
        "total seconds per request and per tool call; the work is then stopped and the call answers with an error",
        float,
        forward=True,
    ),
    Option(
        "--crawl-limit",
        C.CRAWL_PAGE_LIMIT,
        "pages per source at most: a ceiling for runaway sites (a cut crawl says what it left out)",
        int,
        forward=True,
    ),
    Option(
        "--concurrency", C.CRAWL_CONCURRENCY, "requests at a time per host while indexing", int, forward=True
    ),
    Option(
        "--index-ttl-days",
        C.INDEX_TTL_DAYS,
        "indexed pages older than this are revalidated (conditional requests)",
        float,
        forward=True,
    ),
)
#: The shared options a subagent's server gets when the user gave them (`agent`).
FORWARDED = tuple(o.dest for o in SHARED if o.forward)

SERVE = Command(
    "serve",
    "run the MCP server (the command when none is given): on stdio, or with --http on streamable HTTP",
    (
        Option(
            "--no-index", help="do not build or refresh the site index in the background", action="store_true"
        ),
        Option(
            "--http",
            metavar="[HOST:]PORT",
            help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio (HOST: 127.0.0.1); default: stdio",
        ),
        Option(
            "--allow-remote",
            help="allow --http on a non-loopback address (needs a token)",
            action="store_true",
        ),
        Option(
            "--token",
            help="bearer token every HTTP request must carry (default: $DOCS_MCP_TOKEN); other local users "
            "can read it in the process list: prefer --token-file",
        ),
        Option("--token-file", metavar="PATH", type=Path, help="read the bearer token from this file"),
        Option(
            "--allowed-host",
            metavar="NAME[:PORT]",
            action="append",
            help="a host name HTTP requests may be addressed to besides the address served on (a name behind "
            "a proxy); repeatable",
        ),
        Option(
            "--stateless",
            help="with --http: no session kept between requests (JSON answers), so any replica behind a load "
            "balancer answers any request",
            action="store_true",
        ),
    ),
)
INDEX = Command(
    "index",
    "build or refresh the site index, with a progress bar",
    (
        Option("--refresh", help="revalidate every page, not only stale ones", action="store_true"),
        Option("--workers", type=int, help="processes for parsing (default: all cores)"),
    ),
)
MIGRATE = Command(
    "migrate",
    "bring the shared PostgreSQL index (--index-url) to this version's schema and say so; the only command "
    "that changes it (run it before the crawl job and the replicas of a new version)",
    (),
)
MEASURE = Command(
    "measure",
    "what each tool returns for one page, in chars and tokens",
    (
        Option("url", help="page URL or path under a source"),
        Option("--query", help="question for search_in_doc/search_docs"),
        Option("--json", help="machine-readable output", action="store_true"),
    ),
)
AGENT = Command(
    "agent",
    "write a Claude Code subagent that alone holds these docs",
    (
        Option("name", help="the subagent's name, also its server's (lowercase letters, digits, -)"),
        Option(
            "--scope",
            "project",
            "project: ./.claude/agents/ (default); user: ~/.claude/agents/",
            choices=("project", "user"),
        ),
        Option("--model", "haiku", "default: haiku", choices=("haiku", "sonnet", "opus", "inherit")),
        Option(
            "--description",
            help="the subagent's description, what makes Claude delegate to it "
            "(default: written from the docs' own titles when indexed)",
        ),
        Option("--force", help="replace an existing file", action="store_true"),
        Option("--print", help="write the file to stdout instead", action="store_true"),
        Option(
            "--uvx",
            help="launch the server with uvx --offline (its absolute path) instead of this installation's path",
            action="store_true",
        ),
    ),
)
TOOL_COMMANDS = tuple(Command(t.command, t.summary, tuple(map(tool_option, t.params))) for t in TOOLS)
ALL_COMMANDS = (SERVE, INDEX, MIGRATE, *TOOL_COMMANDS, MEASURE, AGENT)
COMMANDS = tuple(c.name for c in ALL_COMMANDS)


def program() -> str:
    """The name this process was started as (docslice or docs-mcp); docslice otherwise."""
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    return name if name in PROGRAMS else PROGRAMS[0]


def _common(p: argparse.ArgumentParser, prefix: str = "") -> None:
    """The shared options; no defaults here (SUPPRESS), so `given` shows what the user typed."""
    group = p.add_argument_group("options shared by every command (before or after its name)")
    for o in SHARED:
        shown = "" if o.action == "store_true" else f"; default {o.default_text().replace('`', '')}"
        o.add_to(
            group,
            dest=prefix + o.dest,
            default=argparse.SUPPRESS,
            help=(o.help.replace("`", "") + shown).replace("%", "%%"),
            metavar=o.metavar or o.dest.upper(),
        )


def parser() -> argparse.ArgumentParser:
    """The whole grammar: the shared options at the top and on every command, then each command's own."""
    top = CommandLine(
        prog=program(),
        allow_abbrev=False,
        description="Documentation for AI coding agents, one section at a time. "
        "Without a command, `serve` is assumed.",
    )
    top.add_argument("--version", action="version", version=f"docslice {__version__}")
    _common(top, _TOP)
    sub = top.add_subparsers(dest="command", metavar="COMMAND", parser_class=argparse.ArgumentParser)
    for command in ALL_COMMANDS:
        # Strict about option names (no abbreviations), with the shared options.
        p = sub.add_parser(
            command.name, help=command.summary, description=command.summary, allow_abbrev=False
        )
        _common(p)
        for option in command.options:
            option.add_to(p)
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
            if o.action == "append":  # repeatable: roots given before and after the command all count
                value = [*(top or []), *(own or [])]
            if top is not None or own is not None:
                ns.given.add(o.dest)
            setattr(ns, o.dest, value if value is not None else o.default)
        return ns


def parse(argv: list[str]) -> argparse.Namespace:
    """Parse a command line: shared options before or after the command; no command means `serve`."""
    return parser().parse_args(argv)
