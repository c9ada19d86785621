"""project: sources remembered in $DOCSLICE_SOURCE or a .docslice.toml, so commands need no --source."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SITE

from docs_mcp.cli.project import remembered_sources
from docs_mcp.errors import InvalidArgument


def test_the_variable_holds_one_source_per_line(tmp_path):
    env = {"DOCSLICE_SOURCE": "pg=https://www.postgresql.org/docs/15/\n\n  https://docs.python.org/3/  \n"}
    found = remembered_sources(tmp_path, env)
    assert found is not None and found.origin == "$DOCSLICE_SOURCE"
    assert found.specs == ("pg=https://www.postgresql.org/docs/15/", "https://docs.python.org/3/")


def test_the_nearest_project_file_is_read_from_a_subfolder_with_folders_relative_to_it(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "src" / "deep").mkdir(parents=True)
    (tmp_path / ".docslice.toml").write_text(
        'source = ["pg=https://www.postgresql.org/docs/15/", "./docs", "mine=docs"]\n', encoding="utf-8"
    )
    found = remembered_sources(tmp_path / "src" / "deep", {})
    assert found is not None and found.origin == str(tmp_path / ".docslice.toml")
    docs = (tmp_path / "docs").resolve()
    assert found.specs == ("pg=https://www.postgresql.org/docs/15/", str(docs), f"mine={docs}")


def test_the_variable_wins_over_the_project_file(tmp_path):
    (tmp_path / ".docslice.toml").write_text('source = "https://a.example/docs/"\n', encoding="utf-8")
    assert remembered_sources(tmp_path, {}).specs == ("https://a.example/docs/",)
    assert remembered_sources(tmp_path, {"DOCSLICE_SOURCE": "https://b.example/"}).specs == (
        "https://b.example/",
    )


def test_a_blank_variable_counts_as_unset(tmp_path):
    (tmp_path / ".docslice.toml").write_text('source = "https://a.example/docs/"\n', encoding="utf-8")
    assert remembered_sources(tmp_path, {"DOCSLICE_SOURCE": " \n"}).specs == ("https://a.example/docs/",)


@pytest.mark.parametrize(
    "text", ['sources = ["https://a.example/"]\n', "source = 3\n", "source = []\n", "source = [\n"]
)
def test_a_project_file_with_anything_but_a_source_list_is_refused_naming_itself(tmp_path, text):
    (tmp_path / ".docslice.toml").write_text(text, encoding="utf-8")
    with pytest.raises(InvalidArgument, match=r"\.docslice\.toml"):
        remembered_sources(tmp_path, {})


def docslice(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "docs_mcp", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "DOCS_MCP_CACHE_DIR": str(cwd / "cache"), **env},
        timeout=120,
    )


def test_commands_run_without_source_in_a_project_that_remembers_it(tmp_path):
    shutil.copytree(SITE, tmp_path / "docs")
    (tmp_path / ".docslice.toml").write_text('source = ["./docs"]\n', encoding="utf-8")
    run = docslice("section", "seed.html", "chart-datum", cwd=tmp_path, env={})
    assert run.returncode == 0, run.stderr
    assert "### Chart datum" in run.stdout


def test_a_command_refuses_a_project_files_folder_outside_it_until_the_user_accepts_it(tmp_path):
    (tmp_path / ".docslice.toml").write_text(f"source = [{str(SITE)!r}]\n", encoding="utf-8")
    run = docslice("section", "seed.html", "chart-datum", cwd=tmp_path, env={})
    assert run.returncode == 2 and "outside its own" in run.stderr and "### Chart datum" not in run.stdout
    run = docslice("section", "seed.html", "chart-datum", cwd=tmp_path, env={"DOCSLICE_PROJECT_OUTSIDE": "1"})
    assert run.returncode == 0 and "### Chart datum" in run.stdout, run.stderr


def test_sources_from_the_variable_serve_a_command_and_the_command_line_wins(tmp_path):
    run = docslice("toc", "seed.html", cwd=tmp_path, env={"DOCSLICE_SOURCE": str(SITE)})
    assert run.returncode == 0 and run.stdout.startswith("# Tidal datums"), run.stderr
    other = tmp_path / "other"
    other.mkdir()
    run = docslice(
        "toc", "seed.html", "--source", str(other), cwd=tmp_path, env={"DOCSLICE_SOURCE": str(SITE)}
    )
    assert run.returncode == 1 and "seed.html" in run.stderr


def test_without_any_source_the_error_says_where_sources_can_be_remembered(tmp_path):
    run = docslice("toc", "seed.html", cwd=tmp_path, env={})
    assert run.returncode == 2
    assert "--source" in run.stderr and "DOCSLICE_SOURCE" in run.stderr and ".docslice.toml" in run.stderr


def test_the_variables_old_names_are_still_read_the_new_ones_first(tmp_path):
    old = {"DOCS_MCP_SOURCE": "https://old.example/docs/"}
    assert remembered_sources(tmp_path, old).specs == ("https://old.example/docs/",)
    both = {**old, "DOCSLICE_SOURCE": "https://new.example/docs/"}
    assert remembered_sources(tmp_path, both).specs == ("https://new.example/docs/",)


def test_the_cache_is_under_the_docslice_name_and_an_old_docs_mcp_cache_keeps_being_used(
    tmp_path, monkeypatch
):
    from docs_mcp.settings import default_cache_dir

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("DOCS_MCP_CACHE_DIR", raising=False)
    assert default_cache_dir() == tmp_path / "docslice"
    (tmp_path / "docs-mcp").mkdir()
    (tmp_path / "docs-mcp" / "index.sqlite").write_bytes(b"")  # an index built before the rename
    assert default_cache_dir() == tmp_path / "docs-mcp"
    (tmp_path / "docslice").mkdir()
    (tmp_path / "docslice" / "index.sqlite").write_bytes(b"")  # moved (README): the new place wins
    assert default_cache_dir() == tmp_path / "docslice"
    monkeypatch.setenv("DOCS_MCP_CACHE_DIR", str(tmp_path / "given"))
    assert default_cache_dir() == tmp_path / "given"
    monkeypatch.setenv("DOCSLICE_CACHE_DIR", str(tmp_path / "named"))
    assert default_cache_dir() == tmp_path / "named"


@pytest.mark.parametrize("spec", ["~", "/etc", "../outside", "home=~", "up=.."])
def test_a_project_file_naming_a_folder_outside_its_own_is_refused_unless_the_user_accepts_it(tmp_path, spec):
    project = tmp_path / "clone"
    (project / "docs").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (project / ".docslice.toml").write_text(f'source = ["./docs", "{spec}"]\n', encoding="utf-8")
    with pytest.raises(InvalidArgument, match="outside its own") as refused:
        remembered_sources(project, {})
    assert "DOCSLICE_PROJECT_OUTSIDE=1" in str(refused.value)
    accepted = remembered_sources(project, {"DOCSLICE_PROJECT_OUTSIDE": "1"})
    assert accepted.specs[0] == str((project / "docs").resolve()) and len(accepted.specs) == 2


def test_a_link_inside_the_project_to_a_folder_outside_is_outside(tmp_path):
    project = tmp_path / "clone"
    project.mkdir()
    (project / "docs").symlink_to(Path.home())
    (project / ".docslice.toml").write_text('source = ["./docs"]\n', encoding="utf-8")
    with pytest.raises(InvalidArgument, match="outside its own"):
        remembered_sources(project, {})
