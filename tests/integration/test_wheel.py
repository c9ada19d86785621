"""The wheel, built from this tree and installed in a fresh venv, runs on its own: no source tree needed."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest
from conftest import FIXTURES

from docs_mcp import __version__

REPO = FIXTURES.parent
pytestmark = pytest.mark.anyio


def sh(*args, **kw) -> subprocess.CompletedProcess:
    run = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=300, **kw)
    assert run.returncode == 0, run.stdout + run.stderr
    return run


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh venv holding only the wheel; its dependencies are the test environment's (a .pth line),
    so no index is needed and nothing is downloaded."""
    tmp = tmp_path_factory.mktemp("wheel")
    sh(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "-q",
        "--no-deps",
        "--no-build-isolation",
        "-w",
        tmp / "dist",
        REPO,
    )
    [wheel] = (tmp / "dist").glob("docslice-*.whl")
    env = tmp / "venv"
    venv.create(env, with_pip=False)
    python = env / "bin" / "python"
    sh(sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", "--no-index", wheel)
    # Only after the install: pip must not see (and offer to replace) the test environment's own copy.
    target = Path(
        sh(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip()
    )
    (target / "_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return env


def clean_env(tmp: Path) -> dict[str, str]:
    """No PYTHONPATH, no venv of ours on PATH, run from elsewhere: the source tree is out of reach."""
    env = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "DOCS_MCP_CACHE_DIR")
    }
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if str(REPO) not in p)
    env["DOCS_MCP_CACHE_DIR"] = str(tmp / "cache")
    return env


def test_wheel_carries_both_commands_the_license_and_the_new_name(installed):
    [wheel] = (installed.parent / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        meta = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        entry = z.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    assert (
        "Name: docslice\n" in meta
        and f"Version: {__version__}\n" in meta
        and "License-Expression: MIT" in meta
    )
    assert any(n.endswith("licenses/LICENSE") for n in names)
    assert "docslice = docs_mcp.cli.main:main" in entry and "docs-mcp = docs_mcp.cli.main:main" in entry
    assert not any(n.startswith(("tests/", "fixtures/")) for n in names)


def test_installed_commands_print_the_version_from_anywhere(installed, tmp_path):
    for command in ("docslice", "docs-mcp"):
        run = sh(installed / "bin" / command, "--version", cwd=tmp_path, env=clean_env(tmp_path))
        assert run.stdout == f"docslice {__version__}\n"
    where = sh(
        installed / "bin" / "python",
        "-c",
        "import docs_mcp; print(docs_mcp.__file__)",
        cwd=tmp_path,
        env=clean_env(tmp_path),
    )
    assert Path(where.stdout.strip()).is_relative_to(installed)


async def test_installed_server_answers_tools_list_over_stdio(installed, tmp_path):
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# Guide\n\n## Install\n\nRun the installer.\n")
    params = StdioServerParameters(
        command=str(installed / "bin" / "docslice"),
        args=["--source", str(docs), "--no-index"],
        env=clean_env(tmp_path),
        cwd=str(tmp_path),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        assert init.server_info.version == __version__
        tools = await session.list_tools()
        assert {t.name for t in tools.tools} == {
            "search_docs",
            "search_in_doc",
            "get_doc_toc",
            "get_doc_section",
            "get_doc_content",
        }
        res = await session.call_tool("get_doc_section", {"url": "guide.md", "section_id": "install"})
        assert not res.is_error and "Run the installer." in res.content[0].text
