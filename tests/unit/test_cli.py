"""cli: every command and option is documented in the README (sqlite-utils style), and the basic exits."""

from __future__ import annotations

import argparse
import re

import pytest
from conftest import FIXTURES

from docs_mcp import __version__
from docs_mcp.cli import COMMANDS, main, parser, summary
from docs_mcp.indexer import Progress

README = (FIXTURES.parent / "README.md").read_text(encoding="utf-8")


def subparsers() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def options(command: str) -> list[str]:
    return [o for a in subparsers()[command]._actions for o in a.option_strings if o not in ("-h", "--help")]


def documented(text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(text)}(?![\w-])", README) is not None


def test_every_command_has_a_subparser():
    assert sorted(subparsers()) == sorted(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_command_is_documented_in_the_readme(command):
    assert f"docs-mcp {command}" in README or f"`{command}`" in README


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_of_the_command_is_documented_in_the_readme(command):
    assert options(command), command
    missing = [o for o in options(command) if not documented(o)]
    assert missing == [], f"docs-mcp {command}: options missing from README.md"


def test_version_is_printed(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out == f"docs-mcp {__version__}\n"


def test_index_without_a_source_exits_2_naming_the_option(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["index"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("docs-mcp: ")
    assert "--source" in err


def test_search_without_a_query_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["search", "--source", "https://example.org/docs/"])
    assert exc.value.code == 2
    assert "query" in capsys.readouterr().err


def test_build_summary_counts_redirected_addresses_only_when_there_are_some():
    assert "redirected" not in summary(Progress("docs", fetched=3))
    assert summary(Progress("docs", redirected=2)).endswith("2 redirected")
