"""cli: every command and option is documented in the README (sqlite-utils style), and the basic exits."""

from __future__ import annotations

import argparse
import re

import pytest
from conftest import FIXTURES

from docs_mcp import __version__
from docs_mcp.cli.arguments import parse, parser
from docs_mcp.cli.commands import for_people
from docs_mcp.cli.grammar import COMMANDS, SHARED
from docs_mcp.cli.main import main
from docs_mcp.cli.reference import regenerate
from docs_mcp.cli.report import summary
from docs_mcp.crawl.indexer import Progress
from docs_mcp.errors import DocsMCPError
from docs_mcp.tools.specs import TOOLS

README = (FIXTURES.parent / "README.md").read_text(encoding="utf-8")
HOW = (FIXTURES.parent / "docs" / "how-it-works.md").read_text(encoding="utf-8")
SRC = FIXTURES.parent / "src" / "docs_mcp"


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
    assert f"docslice {command}" in README or f"docs-mcp {command}" in README


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_of_the_command_is_documented_in_the_readme(command):
    assert options(command), command
    missing = [o for o in options(command) if not documented(o)]
    assert missing == [], f"docs-mcp {command}: options missing from README.md"


def _help_lines() -> list[tuple[str, argparse.Action, str | None]]:
    """(command, option, the default it has or None) for every option taking a value, on every command."""
    shared = {o.dest: o for o in SHARED}
    out = []
    for command, sub in [("(top)", parser()), *subparsers().items()]:
        for action in sub._actions:
            if not action.option_strings or action.nargs == 0:
                continue  # positional arguments and switches
            option = shared.get(action.dest.removeprefix("top_"))
            if option is not None:  # shared: argparse holds no default (SUPPRESS), the declaration does
                default = option.shown_default or (None if option.default is None else str(option.default))
            else:
                default = None if action.default in (None, argparse.SUPPRESS) else str(action.default)
            out.append((command, action, default))
    return out


def test_every_option_with_a_default_says_it_in_its_help_line():
    hidden = [
        f"{command} {action.option_strings[0]}"
        for command, action, default in _help_lines()
        if default is not None and "default" not in (action.help or "").lower()
    ]
    assert _help_lines() and hidden == []


def test_a_tool_options_help_line_says_its_default():
    find = subparsers()["find"].format_help()
    assert re.search(r"--max-sections N\s+Sections, 1-10; default 3", find), find
    section = " ".join(subparsers()["section"].format_help().split())
    assert (
        "--start N Offset to start from: a previous next_start_index or a passage offset; default 0"
        in section
    )


def test_serve_says_stdio_is_the_default_and_serve_the_default_command():
    text = " ".join(subparsers()["serve"].format_help().split())
    assert (
        "run the MCP server (the command when none is given): on stdio, or with --http on streamable HTTP"
        in text
    )
    assert "instead of stdio (HOST: 127.0.0.1); default: stdio" in text


def test_top_level_options_are_documented_in_the_readme():
    top = [o for a in parser()._actions for o in a.option_strings if o not in ("-h", "--help")]
    assert "--version" in top
    assert [o for o in top if not documented(o)] == []


def test_the_readmes_generated_tables_match_the_declarations():
    assert "<!-- generated: tool-parameters" in README and "<!-- generated: shared-options" in README
    assert regenerate(README) == README, "run: python -m docs_mcp.cli.reference README.md"


@pytest.mark.parametrize("tool", TOOLS, ids=[t.name for t in TOOLS])
def test_every_tool_parameter_is_documented(tool):
    missing = [p.name for p in tool.params if f"`{p.name}`" not in README and f"`{p.name}`" not in HOW]
    assert missing == [], f"{tool.name}: parameters missing from README.md and docs/how-it-works.md"


def _variables(text: str) -> set[str]:
    """The environment variables a module names, or reads by their short name (environment.env)."""
    short = re.findall(r'\benv\("([A-Z0-9_]+)"', text)
    return set(re.findall(r"DOCSLICE_[A-Z0-9_]+", text)) | {f"DOCSLICE_{n}" for n in short}


def test_every_environment_variable_is_documented():
    used = set().union(*(_variables(path.read_text()) for path in SRC.rglob("*.py")))
    assert {"DOCSLICE_CACHE_DIR", "DOCSLICE_PG_POOL_SIZE"} <= used  # the scan finds them
    missing = sorted(v for v in used if f"`{v}`" not in README and f"`{v}`" not in HOW)
    assert missing == [], "environment variables missing from README.md and docs/how-it-works.md"


def test_version_is_printed_under_the_distribution_name(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out == f"docslice {__version__}\n"


def test_index_without_a_source_exits_2_naming_the_option(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["index"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("docslice: ")  # under a test runner; the console script's own name otherwise
    assert "--source" in err


# --- shared options before or after the command ---------------------------------------------------
def test_shared_options_are_accepted_before_and_after_the_command():
    before = parse(["--source", "https://example.org/docs/", "--max-chars", "3000", "search", "vacuum"])
    after = parse(["search", "vacuum", "--source", "https://example.org/docs/", "--max-chars", "3000"])
    assert vars(before) == vars(after)
    assert (before.command, before.query, before.source, before.max_chars) == (
        "search",
        "vacuum",
        ["https://example.org/docs/"],
        3000,
    )


def test_sources_given_before_and_after_the_command_all_count_in_order():
    args = parse(["--source", "a=https://a.example/", "toc", "x.html", "--source", "b=https://b.example/"])
    assert args.source == ["a=https://a.example/", "b=https://b.example/"]


def test_an_option_after_the_command_wins_over_the_same_before_it():
    args = parse(["--timeout", "5", "read", "x.html", "--timeout", "7"])
    assert args.timeout == 7.0


def test_defaults_apply_and_only_typed_options_count_as_given():
    args = parse(["toc", "x.html", "--cache-dir", "/tmp/c"])
    assert {o.dest: getattr(args, o.dest) for o in SHARED if o.dest not in ("source", "cache_dir")} == {
        o.dest: o.default for o in SHARED if o.dest not in ("source", "cache_dir")
    }
    assert args.given == {"cache_dir"}


def test_without_a_command_serve_is_assumed_whatever_the_order_of_options():
    for argv in (
        ["--source", "https://example.org/docs/"],
        ["--source", "https://example.org/docs/", "--no-index"],
        ["--http", "8000", "--source", "https://example.org/docs/"],
        ["--token", "search", "--http", "8000"],  # an option's value is not a command
    ):
        assert parse(argv).command == "serve", argv
    assert parse(["--http", "8000"]).http == "8000"


def test_a_misspelt_command_is_a_usage_error_naming_the_choices(capsys):
    with pytest.raises(SystemExit) as exc:
        parse(["--source", "https://example.org/docs/", "serach", "vacuum"])
    assert exc.value.code == 2
    assert "invalid choice: 'serach'" in capsys.readouterr().err


def test_abbreviated_options_are_refused(capsys):
    with pytest.raises(SystemExit):
        parse(["toc", "x.html", "--sour", "https://example.org/docs/"])
    assert "unknown option --sour (did you mean --source?)" in capsys.readouterr().err


def test_search_without_a_query_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["search", "--source", "https://example.org/docs/"])
    assert exc.value.code == 2
    assert "query" in capsys.readouterr().err


def test_build_summary_counts_redirected_addresses_only_when_there_are_some():
    assert "redirected" not in summary(Progress("docs", done=3, fetched=3))
    assert "2 redirected (indexed at their target), 0 failed" in summary(
        Progress("docs", done=2, redirected=2)
    )


def test_a_build_summary_shows_a_sites_control_characters_escaped_whatever_prints_it():
    # A Content-Type and a link from the site reach the summary: `search` printed it raw (index_if_empty).
    said = summary(
        Progress(
            "docs",
            root="http://127.0.0.1:8000/",
            done=2,
            failed=1,
            errors=["http://127.0.0.1:8000/a.html: not documentation (Content-Type text/x\x9b31m)"],
            not_found=["http://127.0.0.1:8000/\x1b]8;;evil\x07b.html"],
        )
    )
    assert "\x9b" not in said and "\x1b" not in said and "\x07" not in said
    assert "text/x\\x9b31m" in said and "\\x1b]8;;evil\\x07b.html" in said


def test_the_parser_object_parses_like_parse_for_scripts_that_build_an_app_from_it():
    argv = ["--source", "https://example.org/docs/", "serve", "--no-index"]
    assert vars(parser().parse_args(argv)) == vars(parse(argv))
    assert parser().parse_args(["serve", "--source", "https://example.org/docs/"]).max_chars == 20_000


@pytest.mark.parametrize(
    ("tool_text", "for_a_person"),
    [
        ("use search_docs to find the right page", "use `docslice search` to find the right page"),
        ("(get_doc_toc lists all)", "(`docslice toc` lists all)"),
        ("call get_doc_section with start_index=700]", "call `docslice section` with --start 700]"),
        ("include_code_blocks=true shows it", "--code shows it"),
        ("max_length must be an integer", "--max-length must be an integer"),
        ("`search_in_doc` on it", "`docslice find` on it"),
    ],
)
def test_tool_advice_reads_as_commands_on_the_command_line(tool_text, for_a_person):
    assert for_people(tool_text) == for_a_person


def test_build_counts_are_plain_english_and_scripts_read_for_links_go_unsaid():
    one = summary(Progress("docs", done=1, fetched=1, scripts=12))
    assert one.startswith("docs: 1 page via ") and "1 pages" not in one
    assert "script" not in one  # read for the pages they name: no page of the source, nothing to say
    assert summary(Progress("docs", done=2, fetched=2)).startswith("docs: 2 pages via ")


def test_a_password_in_index_url_on_the_command_line_is_warned_about_like_token(capsys):
    from docs_mcp.cli.app import settings_from

    settings = settings_from(parse(["search", "q", "--index-url", "postgresql://docs:pw-9@db.internal/docs"]))
    said = capsys.readouterr().err
    assert settings.index_url == "postgresql://docs:pw-9@db.internal/docs"
    assert "warning: --index-url's password is visible to every local user" in said
    assert "--index-url-file PATH or DOCSLICE_INDEX_URL" in said and "pw-9" not in said
    for other_form in ("postgresql://docs@db.internal/docs?password=pw-9", "host=db.internal password=pw-9"):
        settings_from(parse(["search", "q", "--index-url", other_form]))
        assert "--index-url's password is visible" in capsys.readouterr().err, other_form
    settings_from(parse(["search", "q", "--index-url", "postgresql://docs@db.internal/docs"]))
    assert capsys.readouterr().err == ""  # no password, nothing to warn about


def test_the_index_url_is_read_from_a_file_and_a_file_others_can_read_is_said(tmp_path, capsys, monkeypatch):
    from docs_mcp.cli.app import settings_from

    monkeypatch.setenv("DOCSLICE_INDEX_URL", "postgresql://env@db/env")
    secret = tmp_path / "index-url"
    secret.write_text("postgresql://docs:pw-9@db.internal/docs\n")
    secret.chmod(0o600)
    assert settings_from(parse(["index", "--index-url-file", str(secret)])).index_url == (
        "postgresql://docs:pw-9@db.internal/docs"
    )
    assert capsys.readouterr().err == ""
    secret.chmod(0o644)
    settings_from(parse(["index", "--index-url-file", str(secret)]))
    assert f"`chmod 600 {secret}`" in capsys.readouterr().err
    # Without either option the environment's address is used; both options at once are refused.
    assert settings_from(parse(["index"])).index_url == "postgresql://env@db/env"
    with pytest.raises(DocsMCPError, match="once"):
        settings_from(parse(["index", "--index-url-file", str(secret), "--index-url", "postgresql://x@y/z"]))
    (tmp_path / "two").write_text("postgresql://a@b/c\npostgresql://d@e/f\n")
    with pytest.raises(DocsMCPError, match="alone on the file's first line"):
        settings_from(parse(["index", "--index-url-file", str(tmp_path / "two")]))
