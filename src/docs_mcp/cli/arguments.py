"""The command line's parser, built from its grammar (cli/grammar.py): shared options before or after the command,
misspelt options named, the command found in any position."""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from docs_mcp import __version__
from docs_mcp.cli.grammar import ALL_COMMANDS, SHARED
from docs_mcp.cli.project import HELP as REMEMBERED_HELP

#: Names the console scripts go by; messages use the one that was run.
PROGRAMS = ("docslice", "docs-mcp")
#: The top-level parser keeps shared options under this prefix, so a command's own copy cannot erase them.
_TOP = "top_"


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
        epilog=REMEMBERED_HELP,
    )
    top.add_argument("--version", action="version", version=f"docslice {__version__}")
    _common(top, _TOP)
    sub = top.add_subparsers(dest="command", metavar="COMMAND", parser_class=argparse.ArgumentParser)
    for command in ALL_COMMANDS:
        # Strict about option names (no abbreviations), with the shared options.
        p = sub.add_parser(
            command.name,
            help=command.summary,
            description=command.summary,
            epilog=REMEMBERED_HELP,
            allow_abbrev=False,
        )
        _common(p)
        for option in command.options:
            option.add_to(p)
    return top


def _flags(p: argparse.ArgumentParser) -> tuple[set[str], set[str]]:
    """Every option of every command, and those of them that take a value."""
    subs = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
    actions = [a for sp in (p, *subs.choices.values()) for a in sp._actions if a.option_strings]
    every = {flag for a in actions for flag in a.option_strings}
    return every, {flag for a in actions if a.nargs != 0 for flag in a.option_strings}


def _misspelt_option(p: argparse.ArgumentParser, argv: list[str]) -> str:
    """'unknown option --sources (did you mean --source?)' for the first option no command has, or "": said
    alone, not as argparse's 'unrecognized arguments: --sources dataclass', which swallows the query."""
    every, takes_value = _flags(p)
    i = 0
    while i < len(argv):
        word = argv[i].partition("=")[0]
        if word == "--":
            return ""
        if word.startswith("--") and word not in every:
            close = difflib.get_close_matches(word, sorted(every), n=1, cutoff=0.75)
            return f"unknown option {word}" + (f" (did you mean {close[0]}?)" if close else "")
        i += 2 if word in takes_value and "=" not in argv[i] else 1
    return ""


def _has_command(p: argparse.ArgumentParser, argv: list[str]) -> bool:
    """True when the command line names a command: its first positional word (`serve` has none)."""
    takes_value = _flags(p)[1]
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
        misspelt = _misspelt_option(self, argv)
        if misspelt:
            self.error(misspelt)
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
