"""agent: the subagent file Claude Code reads, checked with a YAML parser, and the server it launches."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import FIXTURES, SITE, make_tools

import docs_mcp
from docs_mcp.cli.agent import AgentFile, render
from docs_mcp.cli.grammar import SHARED
from docs_mcp.fetch.sources import SourceSet
from docs_mcp.transport.server import build_server

REPO = FIXTURES.parent
#: Most tests run the console script in a subprocess (up to 120 s each under load).
pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]
SCRIPT = Path(sys.executable).parent / "docslice"  # the test environment's own console script
EXAMPLE = REPO / "examples" / "claude-agents" / "docs-researcher.md"


def front_matter(text: str) -> tuple[dict, str]:
    """The YAML between the two `---` lines, parsed; then the body."""
    assert text.startswith("---\n")
    head, body = text[4:].split("\n---\n", 1)
    return yaml.safe_load(head), body


def docslice(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    """The test environment's console script, run in a scratch project with its own HOME."""
    base = {k: v for k, v in os.environ.items() if k != "DOCS_MCP_CACHE_DIR"}
    env = {**base, "HOME": str(cwd / "home"), **(env or {})}
    return subprocess.run([str(SCRIPT), *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120)


def server_tools(*specs: str) -> list[str]:
    import asyncio

    async def names() -> list[str]:
        return [t.name for t in await build_server(make_tools(*specs)).list_tools()]

    return asyncio.run(names())


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    return tmp_path


def test_agent_file_follows_every_rule_claude_code_reads(project, site):
    run = docslice(
        "agent", "tide-docs", "--source", str(SITE), "--source", site.url, "--model", "sonnet", cwd=project
    )
    assert run.returncode == 0, run.stderr
    path = project / ".claude" / "agents" / "tide-docs.md"
    meta, body = front_matter(path.read_text(encoding="utf-8"))
    port = site.url.rsplit(":", 1)[1].rstrip("/")
    assert meta["name"] == "tide-docs"
    # The description names the docs, so the main agent knows what to delegate.
    for text in ("site", str(SITE), f"localhost-{port}", site.url, "proactively"):
        assert text in meta["description"]
    # Exactly this server's tools, read from the server, under the server's name.
    assert meta["tools"] == ", ".join(f"mcp__tide-docs__{t}" for t in server_tools(str(SITE)))
    assert len(meta["tools"].split(", ")) == 5
    assert meta["model"] == "sonnet"
    # mcpServers is a list (Claude Code ignores a mapping) holding one inline stdio definition.
    assert isinstance(meta["mcpServers"], list) and len(meta["mcpServers"]) == 1
    [entry] = meta["mcpServers"]
    assert list(entry) == ["tide-docs"]
    server = entry["tide-docs"]
    assert server["type"] == "stdio"
    assert server["command"] == str(SCRIPT) and Path(server["command"]).is_absolute()
    assert server["args"] == ["--source", f"site={SITE}", "--source", f"localhost-{port}={site.url}"]
    # The body teaches the cheap workflow and asks for sourced, short answers or "not in the docs".
    for text in (
        "search_docs",
        "search_in_doc",
        "get_doc_section",
        "a few sentences",
        "URL",
        "not in the docs",
    ):
        assert text in body
    assert body.index("search_docs") < body.index("search_in_doc") < body.index("get_doc_content")
    assert "never guess" in body
    assert str(path) in run.stderr and "index --source" in run.stderr


@pytest.mark.anyio
async def test_the_files_server_definition_starts_this_installation_with_the_same_sources(project, site):
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    run = docslice(
        "agent", "tide-docs", "--source", str(SITE), "--print", "--cache-dir", "cache", cwd=project
    )
    assert run.returncode == 0, run.stderr
    meta, _ = front_matter(run.stdout)
    server = meta["mcpServers"][0]["tide-docs"]
    assert server["args"][-2:] == ["--cache-dir", str(project / "cache")]  # made absolute
    elsewhere = project / "elsewhere"
    elsewhere.mkdir()
    params = StdioServerParameters(
        command=server["command"],
        args=[*server["args"], "--no-index"],
        env={**os.environ},
        cwd=str(elsewhere),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = [t.name for t in (await session.list_tools()).tools]
        assert meta["tools"] == ", ".join(f"mcp__tide-docs__{t}" for t in listed)
        res = await session.call_tool("get_doc_section", {"url": "seed.html", "section_id": "chart-datum"})
        assert not res.is_error and "### Chart datum" in res.content[0].text


def test_an_existing_file_is_kept_unless_forced(project):
    path = project / ".claude" / "agents" / "tide-docs.md"
    path.parent.mkdir(parents=True)
    path.write_text("mine\n")
    run = docslice("agent", "tide-docs", "--source", str(SITE), cwd=project)
    assert run.returncode == 1 and "--force" in run.stderr
    assert path.read_text() == "mine\n"
    run = docslice("agent", "tide-docs", "--source", str(SITE), "--force", cwd=project)
    assert run.returncode == 0, run.stderr
    assert front_matter(path.read_text())[0]["name"] == "tide-docs"


def test_user_scope_writes_to_the_home_agents_folder(project):
    run = docslice("agent", "tide-docs", "--source", str(SITE), "--scope", "user", cwd=project)
    assert run.returncode == 0, run.stderr
    assert (project / "home" / ".claude" / "agents" / "tide-docs.md").is_file()
    assert not (project / ".claude").exists()


def test_print_writes_the_file_to_stdout_only(project):
    run = docslice("agent", "tide-docs", "--source", str(SITE), "--print", "--model", "inherit", cwd=project)
    assert run.returncode == 0, run.stderr
    assert front_matter(run.stdout)[0]["model"] == "inherit"
    assert not (project / ".claude").exists()


def test_uvx_launch_installs_from_where_this_installation_came_from(project):
    run = docslice("agent", "tide-docs", "--source", str(SITE), "--uvx", "--print", cwd=project)
    assert run.returncode == 0, run.stderr
    server = front_matter(run.stdout)[0]["mcpServers"][0]["tide-docs"]
    assert server["command"] == (shutil.which("uvx") or "uvx")
    # --offline: Claude Code's every start would otherwise ask the registry (and fail without a network).
    assert server["args"][0] == "--offline"
    if Path(docs_mcp.__file__).is_relative_to(REPO / "src"):  # an editable install of this clone (CI's)
        assert server["args"][1:4] == ["--from", str(REPO), "docslice"]
    assert server["args"][-2:] == ["--source", f"site={SITE}"]


@pytest.mark.skipif(os.name == "nt", reason="a shell script stands for uvx")
def test_uvx_is_written_as_an_absolute_path_and_the_index_command_fills_uvs_cache(project):
    bin_dir = project / "bin"
    bin_dir.mkdir()
    uvx = bin_dir / "uvx"
    uvx.write_text("#!/bin/sh\nexit 0\n")
    uvx.chmod(0o755)
    path = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
    run = docslice("agent", "tide-docs", "--source", str(SITE), "--uvx", cwd=project, env={"PATH": path})
    assert run.returncode == 0, run.stderr
    meta, _ = front_matter((project / ".claude" / "agents" / "tide-docs.md").read_text(encoding="utf-8"))
    server = meta["mcpServers"][0]["tide-docs"]
    assert server["command"] == str(uvx) and server["args"][0] == "--offline"
    lines = run.stderr.splitlines()
    index_line = lines[lines.index("Build its index once now, so its first search is complete:") + 1]
    assert index_line.strip().startswith(f"{uvx} --from ") and "--offline" not in index_line
    assert "not on PATH" not in run.stderr


def test_the_description_names_the_docs_by_their_own_title_once_indexed(project):
    cache = project / "cache"
    index = docslice("index", "--source", str(SITE), "--workers", "1", "--cache-dir", str(cache), cwd=project)
    assert index.returncode == 0, index.stderr
    run = docslice(
        "agent", "tide-docs", "--source", str(SITE), "--cache-dir", str(cache), "--print", cwd=project
    )
    assert run.returncode == 0, run.stderr
    description = front_matter(run.stdout)[0]["description"]
    assert description.startswith(
        f"Documentation researcher for Tidepool documentation (local folder {SITE})."
    )


def test_the_advice_says_to_build_the_index_only_when_it_is_not_built(project):
    cache = project / "cache"
    before = docslice("agent", "tide-docs", "--source", str(SITE), "--cache-dir", str(cache), cwd=project)
    assert before.returncode == 0, before.stderr
    assert "Build its index once now, so its first search is complete:" in before.stderr
    assert "Its index is built" not in before.stderr
    index = docslice("index", "--source", str(SITE), "--workers", "1", "--cache-dir", str(cache), cwd=project)
    assert index.returncode == 0, index.stderr
    after = docslice(
        "agent", "tide-docs", "--source", str(SITE), "--cache-dir", str(cache), "--force", cwd=project
    )
    assert after.returncode == 0, after.stderr
    assert (
        "Its index is built (17 pages): its first search is complete, nothing to run first." in after.stderr
    )
    assert "Build its index" not in after.stderr and " index --source" not in after.stderr


def test_the_root_pages_heading_names_the_docs_when_it_says_more_than_its_title(project):
    docs = project / "docs"
    docs.mkdir()
    (docs / "index.html").write_text(
        "<html><head><title>3.11.4 Documentation</title></head><body><main>"
        "<h1>Python 3.11.4 documentation</h1><p>Welcome. " + "Read the tutorial first. " * 20 + "</p>"
        "</main></body></html>",
        encoding="utf-8",
    )
    cache = str(project / "cache")
    assert docslice("index", "--source", str(docs), "--cache-dir", cache, cwd=project).returncode == 0
    run = docslice("agent", "py", "--source", str(docs), "--cache-dir", cache, "--print", cwd=project)
    description = front_matter(run.stdout)[0]["description"]
    assert description.startswith(
        f"Documentation researcher for Python 3.11.4 documentation (local folder {docs})"
    )


def test_a_server_folder_listing_at_the_root_does_not_name_the_docs(project):
    docs = project / "docs"
    docs.mkdir()
    # What Python's http.server sends for a folder without index.html, here as the root page.
    (docs / "index.html").write_text(
        "<html><head><title>Directory listing for /docs/</title></head><body>"
        '<h1>Directory listing for /docs/</h1><hr><ul><li><a href="guide.html">guide.html</a></li></ul>'
        "</body></html>",
        encoding="utf-8",
    )
    (docs / "guide.html").write_text(
        "<html><head><title>Tide guide</title></head><body><main><h1>Tide guide</h1><p>"
        + "Read the gauges at slack water. " * 20
        + "</p></main></body></html>",
        encoding="utf-8",
    )
    cache = str(project / "cache")
    assert docslice("index", "--source", str(docs), "--cache-dir", cache, cwd=project).returncode == 0
    run = docslice("agent", "tides", "--source", str(docs), "--cache-dir", cache, "--print", cwd=project)
    description = front_matter(run.stdout)[0]["description"]
    # Named as a source without a title is (its name), not by the listing's title.
    assert f"(local folder {docs})." in description and "Directory listing" not in description


def test_the_description_before_indexing_names_the_source_and_says_how_to_get_the_title(project):
    run = docslice("agent", "tide-docs", "--source", str(SITE), "--cache-dir", "cache", cwd=project)
    assert run.returncode == 0, run.stderr
    meta, _ = front_matter((project / ".claude" / "agents" / "tide-docs.md").read_text(encoding="utf-8"))
    assert meta["description"].startswith(f"Documentation researcher for site (local folder {SITE}).")
    assert "--force" in run.stderr and "--description" in run.stderr


def test_description_option_is_the_subagents_description(project):
    text = "Answers questions about the Tidepool tide-analysis library: its API, options and examples."
    run = docslice("agent", "tide-docs", "--source", str(SITE), "--description", text, "--print", cwd=project)
    assert run.returncode == 0, run.stderr
    assert front_matter(run.stdout)[0]["description"] == text


def test_the_cache_dir_from_the_environment_is_pinned_in_the_file(project):
    cache = project / "shared-cache"
    run = docslice(
        "agent",
        "tide-docs",
        "--source",
        str(SITE),
        "--print",
        "--max-chars",
        "8000",
        cwd=project,
        env={"DOCS_MCP_CACHE_DIR": str(cache)},
    )
    assert run.returncode == 0, run.stderr
    args = front_matter(run.stdout)[0]["mcpServers"][0]["tide-docs"]["args"]
    assert args == ["--source", f"site={SITE}", "--max-chars", "8000", "--cache-dir", str(cache)]


def test_agent_keeps_deadline_in_the_servers_command(project):
    run = docslice("agent", "tide-docs", "--source", str(SITE), "--print", "--deadline", "60", cwd=project)
    assert run.returncode == 0, run.stderr
    args = front_matter(run.stdout)[0]["mcpServers"][0]["tide-docs"]["args"]
    assert args == ["--source", f"site={SITE}", "--deadline", "60.0"]


def test_every_shared_option_given_reaches_the_subagents_server(project):
    """Derived from the option declarations: a new shared option cannot be forgotten by a hand-kept list."""
    given = [o for o in SHARED if o.forward]
    # Sources are pinned by name (a version's too, with the default version); a PostgreSQL index URL may hold a
    # password, which the agent's file would show: the subagent's server reads $DOCSLICE_INDEX_URL from its
    # environment instead (so does a file's).
    assert {o.flag for o in SHARED} - {o.flag for o in given} == {
        "--source",
        "--versions",
        "--default-version",
        "--index-url",
        "--index-url-file",
    }
    argv: list[str] = []
    for o in given:
        argv += [o.flag, "cache" if o.type is Path else "7"]
    run = docslice("agent", "tide-docs", "--source", str(SITE), "--print", *argv, cwd=project)
    assert run.returncode == 0, run.stderr
    args = front_matter(run.stdout)[0]["mcpServers"][0]["tide-docs"]["args"]
    expected = ["--source", f"site={SITE}"]
    for o in given:
        expected += [o.flag, str(project / "cache") if o.type is Path else str(o.type("7"))]
    assert args == expected


def test_a_name_claude_code_would_reject_is_refused(project):
    run = docslice("agent", "Tide_Docs", "--source", str(SITE), cwd=project)
    assert run.returncode == 2 and "lowercase" in run.stderr
    assert not (project / ".claude").exists()


def test_the_example_is_what_the_command_writes_for_the_python_docs():
    sources = SourceSet.from_specs(["https://docs.python.org/3/"])
    spec = AgentFile(
        "docs-researcher",
        sources.sources,
        tuple(server_tools("https://docs.python.org/3/")),
        "haiku",
        "/home/you/.local/bin/uvx",
        (
            "--offline",
            "--from",
            "/path/to/docslice",
            "docslice",
            "--source",
            "python-3=https://docs.python.org/3/",
        ),
    )
    text = EXAMPLE.read_text(encoding="utf-8")
    assert text == render(spec)
    assert isinstance(front_matter(text)[0]["mcpServers"], list)


def test_a_source_with_versions_reaches_the_subagents_server_with_its_default_version(project):
    versions = SITE.parent / "versions"
    run = docslice(
        "agent", "quill-docs", "--source", f"quill={versions}/{{version}}", "--versions", "3.2,5.0",
        "--default-version", "quill@3.2", "--print", cwd=project,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    args = front_matter(run.stdout)[0]["mcpServers"][0]["quill-docs"]["args"]
    assert args == [
        "--source", f"quill@3.2={versions / '3.2'}", "--source", f"quill@5.0={versions / '5.0'}",
        "--default-version", "quill@3.2",
    ]  # fmt: skip
