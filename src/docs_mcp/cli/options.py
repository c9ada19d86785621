"""One command-line argument or command, declared as data; a tool parameter becomes one (tool_option)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from docs_mcp.tools.specs import Param


@dataclass(frozen=True)
class Option:
    """One argument of the command line; a flag without a leading `-` is a positional argument."""

    flag: str
    default: Any = None
    help: str = ""
    type: Callable[[str], Any] | None = None
    metavar: str | None = None
    #: argparse's action: "store_true" for a switch, "append" for a repeatable option.
    action: str | None = None
    choices: tuple[str, ...] | None = None
    #: How the docs show the default, when its value would not say it.
    shown_default: str | None = None
    #: A shared option that changes what a server answers or where its index is: `agent` writes it into the
    #: subagent's server command when the user gave it.
    forward: bool = False

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")

    @property
    def positional(self) -> bool:
        return not self.flag.startswith("-")

    def default_text(self) -> str:
        if self.shown_default is not None:
            return self.shown_default
        return f"{self.default:g}" if isinstance(self.default, float) else str(self.default)

    def add_to(self, p: argparse.ArgumentParser | Any, **overrides: Any) -> None:
        """Add this option to a parser (or an argument group); `overrides` replace its keywords."""
        kw: dict[str, Any] = {
            "help": self.help.replace("%", "%%"),
            "metavar": self.metavar,
            "choices": self.choices,
        }
        if self.action:
            kw["action"] = self.action
        else:
            kw["type"] = self.type
        if not self.positional:
            kw["default"] = self.default
        kw.update(overrides)
        p.add_argument(self.flag, **{k: v for k, v in kw.items() if v is not None or k == "default"})


def tool_option(param: Param) -> Option:
    """A tool parameter as a command-line argument: positional when required, else its flag."""
    if param.flag is None:
        return Option(param.name, help=param.cli_help, metavar=param.metavar)
    if param.type is bool:
        return Option(param.flag, False, param.cli_help, action="store_true")
    kind = int if param.type is int else str
    said = param.cli_help
    if param.default is not None and "default" not in said:  # max_length's description says it already
        said = f"{said.rstrip('.')}; default {param.default}"
    return Option(param.flag, param.default, said, kind, param.metavar)


def cli_dest(param: Param) -> str:
    """Where the parsed value of a tool parameter is (`--source-name` → source_name)."""
    return tool_option(param).dest


@dataclass(frozen=True)
class Command:
    """A command: its name, its one-line summary, and its own arguments."""

    name: str
    summary: str
    options: tuple[Option, ...] = ()
