"""The command line's grammar, declared as data: the commands, their options, and the shared options that go
before or after the command. The tool commands' options come from the tools' own declarations (tools/specs.py);
cli/arguments.py builds the parser from them."""

from __future__ import annotations

from pathlib import Path

from docs_mcp import settings as C
from docs_mcp.cli.options import Command, Option, tool_option
from docs_mcp.tools.specs import TOOLS

SHARED = (
    Option(
        "--source",
        [],
        "an http(s) URL root or a local folder of `.html`/`.htm`/`.md`; `NAME=` names it; repeatable",
        metavar="[NAME=]URL|DIR",
        action="append",
        shown_default="`$DOCSLICE_SOURCE`, else `source` in `.docslice.toml` (see below)",
    ),
    Option(
        "--versions",
        None,
        "the versions of each `--source NAME=…{version}…` (one root per version, named `NAME@VERSION`); "
        "`NAME@VERSION=URL|DIR` names one root as a version of NAME",
        metavar="3.2,4.2,…",
        shown_default="none (`versions` in `.docslice.toml`)",
    ),
    Option(
        "--default-version",
        [],
        "the version searched when a call names none (default: the newest, compared numerically); repeatable",
        metavar="NAME@VERSION",
        action="append",
        shown_default="the newest (`default_version` in `.docslice.toml`)",
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
        shown_default="`$DOCSLICE_CACHE_DIR` or the user cache dir",
        forward=True,
    ),
    # Not forwarded into a subagent's file (the URL may hold a password): its server reads $DOCSLICE_INDEX_URL.
    Option(
        "--index-url",
        None,
        "a PostgreSQL index shared by a team (`postgresql://…`; the `postgres` extra) instead of `index.sqlite`",
        shown_default="`$DOCSLICE_INDEX_URL`, else the SQLite file in the cache dir",
    ),
    Option(
        "--index-url-file",
        None,
        "read `--index-url` from this file (one line): its password stays out of the process list",
        Path,
        metavar="PATH",
        shown_default="none",
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
            help="bearer token every HTTP request must carry (default: $DOCSLICE_TOKEN); other local users "
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
        Option(
            "--session-budget",
            metavar="CHARS",
            type=int,
            help="chars one MCP session may be sent in all: each answer says what is left, then outlines only",
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
AUDIT = Command(
    "audit",
    "how findable each page is by its own words (title, headings, names, link texts, a paraphrase), and which "
    "pages rank above the right one",
    (
        Option(
            "--pages",
            C.AUDIT_PAGES,
            f"pages sampled per source, the same on every run (by the hash of their address); default {C.AUDIT_PAGES}",
            int,
        ),
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
SOURCES = Command(
    "sources",
    "the sources the index holds: name, pages, size on disk, last refresh, health, root (no --source needed)",
)
REMOVE = Command(
    "remove",
    "remove one source and all its pages from the index (the others stay)",
    (Option("name", help="the source's name or root, as `docslice sources` lists it"),),
)
#: The commands that need no --source: they read the index, whatever its sources.
SOURCELESS = ("sources", "remove", "migrate")
TOOL_COMMANDS = tuple(Command(t.command, t.summary, tuple(map(tool_option, t.params))) for t in TOOLS)
ALL_COMMANDS = (SERVE, INDEX, MIGRATE, *TOOL_COMMANDS, MEASURE, AUDIT, AGENT, SOURCES, REMOVE)
COMMANDS = tuple(c.name for c in ALL_COMMANDS)
