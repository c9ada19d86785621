"""The commands a person runs: index (progress + summary), search, measure (table and --json)."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys

import pytest
from conftest import SITE, model_view

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parse
from docs_mcp.cli.main import main
from docs_mcp.transport.server import build_server

QUERY = "harmonic constituents fitted by least squares"
pytestmark = pytest.mark.timeout(180)  # subprocesses waited on for up to 120 s


def docs_mcp(*args: str, cache) -> subprocess.CompletedProcess:
    env = {**os.environ, "DOCS_MCP_CACHE_DIR": str(cache)}
    return subprocess.run(
        [sys.executable, "-m", "docs_mcp", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_index_prints_progress_and_a_summary(tmp_path):
    run = docs_mcp("index", "--source", str(SITE), "--workers", "1", cache=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "pages (folder)" in run.stderr and "pages/s" in run.stderr and "ETA" in run.stderr
    assert "site: 17 pages via folder" in run.stdout
    assert "17 fetched" in run.stdout and "0 failed" in run.stdout
    assert (tmp_path / "index.sqlite").is_file()  # DOCS_MCP_CACHE_DIR is honoured


@pytest.mark.slow
def test_a_dead_source_exits_1_with_its_reason_and_no_progress_bar(tmp_path):
    with socket.socket() as sock:  # a port nothing listens on: connection refused
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    run = docs_mcp("index", "--source", f"http://127.0.0.1:{port}/", cache=tmp_path)
    assert run.returncode == 1
    assert "no page indexed" in run.stderr and "connection refused" in run.stderr
    assert run.stdout == ""  # said once, on stderr: no summary or page count saying it another way
    assert "[" not in run.stderr and "pages/s" not in run.stderr and "ETA" not in run.stderr


@pytest.mark.slow
def test_search_indexes_first_then_prints_hits(tmp_path):
    run = docs_mcp("search", QUERY, "--source", str(SITE), cache=tmp_path)
    assert run.returncode == 0, run.stderr
    # The first index in a folder says where it went and what moves it.
    assert (
        f"indexing site first, into {tmp_path / 'index.sqlite'} (--cache-dir or DOCSLICE_CACHE_DIR"
        in run.stderr
    )
    first = run.stdout.split("\n\n")[1]
    assert (
        first.startswith("1. API reference") and "big-reference.html#resampling-with-tidal-harmonics" in first
    )


@pytest.mark.slow
def test_measure_prints_an_aligned_table_with_the_cheapest_path_marked(tmp_path):
    run = docs_mcp("measure", "big-reference.html", "--source", str(SITE), "--query", QUERY, cache=tmp_path)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    header = next(line for line in lines if line.startswith("tool "))
    assert header.split() == ["tool", "arguments", "chars", "~tokens", "calls", "note"]
    rows = [line for line in lines if line.startswith(("get_doc_", "search_"))]
    tools = {line.split()[0] for line in rows}
    assert tools == {"get_doc_toc", "get_doc_section", "search_in_doc", "get_doc_content", "search_docs"}
    # Columns are aligned: every row's chars column ends where the header's does.
    end = header.index("chars") + len("chars")
    assert all(line[end - 1].isdigit() for line in rows)
    cheapest = [line for line in lines if "◀ cheapest" in line]
    assert len(cheapest) == 1 and cheapest[0].lstrip().startswith("search_in_doc")
    assert "~tokens: an estimate from the text, usually within 3%" in run.stdout
    # The rows are ways to read one page, not parts of it: no sum of them, but the page's own size.
    assert "total" not in run.stdout
    read = docs_mcp("read", "big-reference.html", "--source", str(SITE), cache=tmp_path)
    total = int(read.stdout.split("total_length=", 1)[1].split(" ", 1)[0])
    assert f"the page itself is {total:,} chars as markdown" in run.stdout
    assert "% of the page" in cheapest[0]


@pytest.mark.slow
def test_measure_json_reports_what_the_model_sees(tmp_path):
    run = docs_mcp(
        "measure",
        "seed.html",
        "--source",
        str(SITE),
        "--query",
        "convert between datums",
        "--json",
        cache=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["title"] == "Tidal datums"
    by_tool = {(r["tool"], r["arguments"]): r for r in report["rows"]}
    whole = by_tool[("get_doc_content", "all pages")]
    first = by_tool[("get_doc_content", "first page")]
    assert whole["calls"] == 1 and whole["chars"] == first["chars"]  # a small page fits one response
    assert all(r["tokens"] < r["chars"] for r in report["rows"] if r["chars"])
    assert min(report["paths"], key=lambda p: p["chars"])["path"] == "search_in_doc"


def test_commands_without_a_source_exit_2_with_a_hint(tmp_path):
    run = docs_mcp("measure", "seed.html", cache=tmp_path)
    assert run.returncode == 2
    assert "--source" in run.stderr


# --- the tools on the command line print exactly what the model sees ----------------------------------
@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """A cache dir holding the fixture site's index, shared by the command-vs-tool comparisons."""
    cache = tmp_path_factory.mktemp("cache")
    run = docs_mcp("index", "--source", str(SITE), "--workers", "1", cache=cache)
    assert run.returncode == 0, run.stderr
    return cache


CASES = [
    (
        ["search", QUERY, "--max-results", "3", "--headings", "--source-name", "site"],
        "search_docs",
        {"query": QUERY, "max_results": 3, "include_headings": True, "source": "site"},
    ),
    (["toc", "big-reference.html"], "get_doc_toc", {"url": "big-reference.html"}),
    (
        ["section", "sphinx.html", "resampling", "--max-length", "400", "--start", "300", "--code"],
        "get_doc_section",
        {
            "url": "sphinx.html",
            "section_id": "resampling",
            "max_length": 400,
            "start_index": 300,
            "include_code_blocks": True,
        },
    ),
    (
        ["find", "big-reference.html", QUERY, "--max-sections", "2", "--max-length", "1500", "--code"],
        "search_in_doc",
        {
            "url": "big-reference.html",
            "query": QUERY,
            "max_sections": 2,
            "max_length": 1500,
            "include_code_blocks": True,
        },
    ),
    (
        ["read", "big-reference.html", "--start", "19980", "--max-length", "0"],
        "get_doc_content",
        {"url": "big-reference.html", "start_index": 19980, "max_length": 0},
    ),
]


@pytest.mark.parametrize(("argv", "tool", "arguments"), CASES, ids=[c[0][0] for c in CASES])
def test_command_prints_exactly_the_tools_text(argv, tool, arguments, indexed, capsys):
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--source", str(SITE), "--cache-dir", str(indexed)])
    printed = capsys.readouterr().out
    assert exc.value.code == 0

    async def through_mcp() -> str:
        from mcp import Client

        app = App(parse(["serve", "--source", str(SITE), "--cache-dir", str(indexed), "--no-index"]))
        async with Client(build_server(app.tools), mode="legacy") as client:
            res = await client.call_tool(tool, arguments)
        assert not res.is_error, model_view(res)
        return model_view(res)

    expected = asyncio.run(through_mcp())
    assert len(expected) > 200  # a real answer, not an error or an empty page
    assert printed == expected + "\n"


def test_a_tool_error_goes_to_stderr_with_exit_1(indexed, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["section", "seed.html", "no-such-section", "--source", str(SITE), "--cache-dir", str(indexed)])
    out, err = capsys.readouterr()
    assert exc.value.code == 1 and out == ""
    assert err.startswith("docslice: ") and "no-such-section" in err and "chart-datum" in err


def test_a_tool_error_on_the_command_line_speaks_of_commands_not_tools(indexed, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["read", "no-such-page.html", "--source", str(SITE), "--cache-dir", str(indexed)])
    err = capsys.readouterr().err
    assert exc.value.code == 1 and "no-such-page.html" in err
    assert "`docslice toc` or `docslice search`" in err
    assert not any(t in err for t in ("search_docs", "get_doc_toc", "get_doc_content"))
    with pytest.raises(SystemExit):
        main(["read", "seed.html", "--start", "99999", "--source", str(SITE), "--cache-dir", str(indexed)])
    err = capsys.readouterr().err
    assert "--start must be an integer from 0 to " in err and "got 99999: past the end" in err
    assert "start_index" not in err


def test_an_option_out_of_range_is_refused_with_its_range_as_the_tool_refuses_it(indexed, capsys):
    where = ["--source", str(SITE), "--cache-dir", str(indexed)]
    for argv, said in [
        (
            ["read", "seed.html", "--max-length", "-5"],
            "--max-length must be an integer from 0 to 20000 (0 = the cap), got -5",
        ),
        (
            ["find", "seed.html", "tide", "--max-sections", "0"],
            "--max-sections must be an integer from 1 to 10, got 0",
        ),
        (
            ["read", "seed.html", "--max-length", "999999"],
            "--max-length must be an integer from 0 to 20000 (0 = the cap), got 999999",
        ),
    ]:
        with pytest.raises(SystemExit) as exc:
            main([*argv, *where])
        err = capsys.readouterr().err
        assert exc.value.code == 1 and said in err, err


def test_shared_options_before_the_command_work_from_the_shell(indexed):
    run = docs_mcp("--source", str(SITE), "--cache-dir", str(indexed), "search", "tidal datum", cache=indexed)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("search_docs 'tidal datum': ")
    assert "seed.html#" in run.stdout


def test_a_closed_pipe_ends_quietly_without_a_traceback(indexed):
    env = {**os.environ, "DOCS_MCP_CACHE_DIR": str(indexed)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "docs_mcp", "read", "big-reference.html", "--source", str(SITE)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    proc.stdout.close()  # like `| head` that has read enough: every write now fails with EPIPE
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141
    assert "Traceback" not in err and "BrokenPipeError" not in err


def test_read_prints_invisible_marks_in_page_text_as_the_model_reads_them_and_still_escapes_controls(
    tmp_path, capsys
):
    # cppreference breadcrumbs end names with U+200E; it once printed as the six characters `\u200e`.
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "vector.html").write_text(
        "<html><head><title>Vec \u202etitle</title></head><body><main><h1>std::vector</h1>"
        "<p>Member functions\u200e of std::vector\u200e, then an escape &#27;[31m in the text.</p>"
        "<p>An override \u202eeciov\u202c reorders a terminal's line.</p>"
        "</main></body></html>",
        encoding="utf-8",
    )
    with pytest.raises(SystemExit) as exc:
        main(["read", "vector.html", "--source", str(docs), "--cache-dir", str(tmp_path / "c")])
    out = capsys.readouterr().out
    assert exc.value.code == 0
    assert "Member functions\u200e of std::vector\u200e, then" in out and "\\u200e" not in out
    assert "an escape \\x1b[31m in the text." in out and "\x1b" not in out  # a terminal never obeys it
    assert "# Vec \\u202etitle" in out and "\u202e" not in out  # a name stays escaped
    assert "An override \\u202eeciov\\u202c reorders" in out  # and so does an override in page text


@pytest.mark.anyio
async def test_measure_shows_the_start_of_each_answer_whole_queries_and_a_plain_footnote(tmp_path):
    from docs_mcp.cli.measure import measure_page, render

    query = "which datum converts heights between two gauges"
    app = App(parse(["measure", "seed.html", "--source", str(SITE), "--cache-dir", str(tmp_path)]))
    try:
        report = await measure_page(app, "seed.html", query)
    finally:
        await app.tools.aclose()
    text = render(report)
    lines = text.splitlines()
    assert any(line.startswith(f"search_docs      '{query}', headings ") for line in lines), text
    assert any(line.startswith(f"search_in_doc    '{query}' ") for line in lines), text
    rows = [i for i, line in enumerate(lines) if line.startswith(("get_doc_", "search_"))]
    shown = [lines[i + 1].strip() for i in rows]
    assert all(s.startswith("↳ ") for s in shown), text
    toc = next(r for r in report["rows"] if r["tool"] == "get_doc_toc")
    assert toc["shows"].startswith("# Tidal datums") and "↳ # Tidal datums" in shown[0]
    assert "p90" not in text and "calibrated" not in text
    assert "~tokens: an estimate from the text, usually within 3% of a real tokenizer's count" in text
