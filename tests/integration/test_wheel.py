"""The wheel, built from this tree and installed in a fresh venv, runs on its own: no source tree needed."""

from __future__ import annotations

import importlib.util
import os
import shutil
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
#: Builds the wheel and a venv (in the first test's setup): minutes on a loaded 2-core machine.
pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.timeout(600)]


def sh(*args, **kw) -> subprocess.CompletedProcess:
    run = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=300, **kw)
    assert run.returncode == 0, run.stdout + run.stderr
    return run


def installer(python: Path) -> list[str] | None:
    """The command that installs a wheel into the venv of `python` without an index: this environment's pip
    (a pip venv); else uv (`uv run` makes a venv without pip); else None, and the fresh venv bootstraps its
    own pip with ensurepip."""
    if importlib.util.find_spec("pip") is not None:
        return [sys.executable, "-m", "pip", "--python", str(python), "install"]
    uv = os.environ.get("UV") or shutil.which("uv")  # uv names itself in UV for the commands it runs
    if uv:
        return [uv, "pip", "install", "--python", str(python)]
    return None


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh venv holding only the wheel; its dependencies are the test environment's (a .pth line),
    so no index is needed and nothing is downloaded. The wheel is built by hatchling's PEP 517 hook, the
    build backend pyproject.toml names (a test dependency): no pip needed to build."""
    tmp = tmp_path_factory.mktemp("wheel")
    built = sh(
        sys.executable,
        "-c",
        "import sys, hatchling.build as b; print(b.build_wheel(sys.argv[1]))",
        tmp / "dist",
        cwd=REPO,
    )
    wheel = tmp / "dist" / built.stdout.strip().splitlines()[-1]
    env = tmp / "venv"
    python = env / "bin" / "python"
    command = installer(python)
    if command is None and importlib.util.find_spec("ensurepip") is None:
        pytest.skip(
            "no installer for the fresh venv: no pip here, no uv on PATH, and no ensurepip in this Python"
        )
    venv.create(env, with_pip=command is None)
    command = command or [str(python), "-m", "pip", "install", "--disable-pip-version-check"]
    sh(*command, "-q", "--no-deps", "--no-index", wheel)
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
