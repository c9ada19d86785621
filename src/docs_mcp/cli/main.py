"""Command line: a thin shell over the library (wiring in app.py, grammar in arguments.py, tools in commands.py)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from typing import TYPE_CHECKING

# Light imports only: arguments are checked before the parsing, search and serving stacks load (< 0.5 s).
from docs_mcp.cli.arguments import parse, program
from docs_mcp.cli.checks import check_before_work
from docs_mcp.cli.logs import configure
from docs_mcp.cli.secrets import token
from docs_mcp.cli.terminal import for_terminal, say
from docs_mcp.errors import DocsMCPError

if TYPE_CHECKING:
    from docs_mcp.cli.app import App
    from docs_mcp.fetch.sources import Source

#: Said on stderr when a stdio server starts in a terminal: nothing else would tell that it is waiting.
WAITING = (
    "serving MCP on stdin/stdout: waiting for an MCP client (Claude Code, an IDE) to talk to it; "
    "press Ctrl-C to stop (`docslice --help` lists the commands a person runs)"
)
#: Seconds the server waits before indexing, so the handshake is not slowed by imports and parsing.
BACKGROUND_DELAY = 1.0


async def _index(args: argparse.Namespace) -> int:
    from docs_mcp.cli.app import App
    from docs_mcp.cli.report import ProgressBar, build_report, index_line

    app = App(args, args.workers)
    if app.index_notice:
        say(app.index_notice)
    if app.index is None:
        return 1
    try:
        reports = await app.indexer.run(refresh=args.refresh, on_progress=ProgressBar())
    finally:
        await app.tools.aclose()
    summaries, problems = build_report(reports)
    for line in summaries:
        print(line)
    if summaries:  # a source that found nothing is said once, on stderr
        print(index_line(app, frozenset(r.root for r in reports if not r.pages)))
    for problem in problems:
        say(problem)
    if app.index_damaged:
        say(app.index_notice)  # repeated last: the run succeeded, but the old index was lost
    return 1 if problems or app.index_damaged else 0


def _serve(args: argparse.Namespace) -> int:
    bind = None
    if args.http is not None:
        from docs_mcp.transport.bind import check_bind

        # Before any work (and before the serving stack is imported): refuse early.
        bind = check_bind(args.http, args.allow_remote, token(args, say), tuple(args.allowed_host or ()))
    elif args.allow_remote or args.token or args.token_file or args.allowed_host or args.stateless:
        raise DocsMCPError(
            "--allow-remote, --token, --token-file, --allowed-host and --stateless apply to --http only "
            "(stdio is local by nature)"
        )
    if bind is None and sys.stdin.isatty():
        say(WAITING)
    from docs_mcp.cli.app import App
    from docs_mcp.transport.server import build_server

    app = App(args)
    if app.index_notice:
        say(app.index_notice + ("" if app.index is not None else "; serving pages without site search"))
    if app.settings.auto_index:
        # Searches say "building" from the first second, not "the index is empty".
        app.builds.announce(app.empty_roots())

    def start_background():
        return asyncio.create_task(_background(app))

    server = build_server(app.tools, start_background, app.sessions())
    if bind is None:
        server.run("stdio")
    else:
        from docs_mcp.transport.http import Serving, serve_http

        serving = Serving(args.stateless, app.readiness, app.settings.deadline, app.unusable)
        serve_http(server, bind, say, serving)
    return 0


def _migrate(args: argparse.Namespace) -> int:
    """`docslice migrate`: one line saying what changed, on stderr like every log line."""
    from docs_mcp.cli.secrets import index_url

    url = index_url(args, say)
    if not url:
        raise DocsMCPError(
            "migrate changes a shared PostgreSQL index: give --index-url (or DOCSLICE_INDEX_URL)"
        )
    from docs_mcp.store.postgres.store import migrate_postgres

    logging.getLogger("docs_mcp").info(migrate_postgres(url))
    return 0


async def _background(app: App) -> None:
    """Say what each source has, warm the index, then build empty sources and refresh stale pages while the
    server answers. (Runs as the server starts: over HTTP, after the address is announced.)"""
    from docs_mcp.cli.report import start_line
    from docs_mcp.fetch.sources import missing_folder

    app.loop = asyncio.get_running_loop()  # a rebuild after damage while serving starts here
    if app.search is None:
        return
    ttl_days = app.settings.index_ttl_days
    try:  # in a thread: a shared index's database may take seconds to answer, or be down
        states = await asyncio.to_thread(app.search.states, True, ttl_days * 86400)
    except DocsMCPError as exc:
        say(f"{exc}; serving meanwhile: searches fail with this reason until it is resolved")
        return
    for state in states:
        say(start_line(state, app.settings.auto_index, ttl_days))
    # A complete index younger than its TTL is used as it is: no build, no request to the site.
    due = [s for s in states if s.due() and not missing_folder(s.source)] if app.settings.auto_index else []
    app.builds.announce([s.source.root for s in due if s.due() == "build"])
    await asyncio.sleep(BACKGROUND_DELAY)  # let the client's initialize and tools/list go first
    try:
        await asyncio.to_thread(app.search.warm)
        if due:
            await _build_in_background(app, [s.source for s in due])
    except Exception as exc:  # the server must keep serving even if indexing fails
        logging.getLogger("docs_mcp").exception("background indexing failed")
        say(f"background indexing failed: {exc.__class__.__name__}: {exc}")
    finally:
        app.builds.settle()


async def _build_in_background(app: App, due: list[Source]) -> None:
    """Build or refresh the sources that need it; one line for each build that ends, or, stopped at
    shutdown, one line for what it did and what the index keeps."""
    from docs_mcp.cli.report import build_line, stopped_line
    from docs_mcp.model.progress import Progress

    seen: dict[str, Progress] = {}

    def after_each(p: Progress) -> None:
        seen[p.root] = p
        if p.finished is not None and p.complete:
            say(build_line(p))

    try:
        await app.indexer.run(on_progress=after_each, background=True, sources=due)
    except asyncio.CancelledError:
        for p in seen.values():
            if not p.complete:
                say(stopped_line(p))
        raise


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "serve":
        return _serve(args)
    from docs_mcp.cli.app import App
    from docs_mcp.cli.report import index_if_empty

    if args.command == "index":
        return asyncio.run(_index(args))
    if args.command == "migrate":
        return _migrate(args)
    if args.command == "measure":
        from docs_mcp.cli.measure import run_measure

        return asyncio.run(run_measure(App(args), args, index_if_empty))
    if args.command == "audit":
        from docs_mcp.cli.audit import run_audit

        return asyncio.run(run_audit(App(args), args, index_if_empty))
    if args.command in ("sources", "remove"):
        from docs_mcp.cli.inventory import held, remove, table
        from docs_mcp.cli.report import where

        app = App(args)
        print(remove(app, args.name) if args.command == "remove" else table(held(app), where(app)))
        return 0
    if args.command == "agent":
        from docs_mcp.cli.agent import run_agent

        return asyncio.run(run_agent(App(args), args))
    from docs_mcp.cli.commands import run_tool_command

    return asyncio.run(run_tool_command(App(args), args, index_if_empty))


def main(argv: list[str] | None = None) -> None:
    args = parse(list(sys.argv[1:] if argv is None else argv))
    configure()
    try:
        refusal = check_before_work(args)
        if refusal:  # a tool's argument out of its range: refused as the tool refuses it, before any work
            print(f"{program()}: {for_terminal(refusal)}", file=sys.stderr)
            sys.exit(1)
        code = _dispatch(args)
    except DocsMCPError as exc:
        print(f"{program()}: {for_terminal(str(exc))}", file=sys.stderr)
        code = 2
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        # The reader went away (`… | head`): not an error worth a traceback. Point stdout at devnull so
        # the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 141  # 128 + SIGPIPE, what the shell reports for a program killed by it
    sys.exit(code)
