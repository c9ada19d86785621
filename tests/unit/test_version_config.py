"""Versions of one source as configured: `{version}` patterns, `NAME@VERSION` roots, the project file, the
default (configured, else the newest compared as versions) and the sources a search reads."""

from __future__ import annotations

import re
from argparse import Namespace
from pathlib import Path

import pytest
from conftest import FIXTURES, make_tools, run

from docs_mcp.cli.project import default_versions, remembered_sources
from docs_mcp.errors import InvalidArgument, PageNotFound
from docs_mcp.fetch.sources import SourceSet
from docs_mcp.fetch.versions import expand_specs, families, version_key
from docs_mcp.tools.versioned import search_scope

VERSIONS = FIXTURES / "versions"
LOCAL = [f"quill@{v}={VERSIONS / v}" for v in ("3.2", "4.2", "5.0")]


def test_versions_are_ordered_as_versions_not_as_text():
    found = sorted(["3.9", "dev", "3.10", "5.1a1", "3.2", "5.0"], key=version_key)
    assert found == ["dev", "5.1a1", "3.2", "3.9", "3.10", "5.0"]  # a pre-release is never the newest release
    assert families(["py@3.9", "py@3.10", "other"])["py"].default == "3.10"


def test_a_pattern_becomes_one_named_root_per_version_inline_or_from_versions():
    assert expand_specs(["dj=https://d.example.org/en/{version}/", "https://x.example.org/"], "3.2,4.2") == [
        "dj@3.2=https://d.example.org/en/3.2/",
        "dj@4.2=https://d.example.org/en/4.2/",
        "https://x.example.org/",
    ]
    assert expand_specs(["pg@15,16=https://pg.example.org/docs/{version}/"]) == [
        "pg@15=https://pg.example.org/docs/15/",
        "pg@16=https://pg.example.org/docs/16/",
    ]


@pytest.mark.parametrize(
    ("specs", "versions", "said"),
    [
        (["dj=https://d.example.org/{version}/"], None, "give its versions with --versions"),
        (["https://d.example.org/{version}/"], "1", "has {version} but no name"),
        (["https://d.example.org/"], "3.2", "no --source holds {version}"),
        (["dj=https://d.example.org/{version}/"], "3.2,../x", "versions are a comma-separated list"),
    ],
)
def test_a_pattern_without_its_versions_or_name_is_refused_saying_what_to_write(specs, versions, said):
    with pytest.raises(InvalidArgument, match=re.escape(said)):
        expand_specs(specs, versions)


def test_the_configured_default_wins_and_must_be_one_of_the_versions():
    sources = SourceSet.from_specs(LOCAL, defaults={"quill": "4.2"})
    assert sources.families["quill"].default == "4.2"
    assert search_scope(sources, "quill", None) == "quill@4.2"
    with pytest.raises(InvalidArgument, match=r"has no version '9\.9'; it has 3\.2, 4\.2, 5\.0"):
        SourceSet.from_specs(LOCAL, defaults={"quill": "9.9"})
    with pytest.raises(InvalidArgument, match="names both a source and versions"):
        SourceSet.from_specs([*LOCAL, f"quill={VERSIONS / '3.2'}"])


def test_a_search_reads_the_version_asked_for_else_the_default_beside_the_sources_without_versions():
    sources = SourceSet.from_specs([*LOCAL, f"site={FIXTURES / 'site'}"])
    assert search_scope(sources, None, None) == ("quill@5.0", "site")
    assert search_scope(sources, None, "3.2") == ("quill@3.2", "site")
    assert search_scope(sources, "quill", "4.2") == "quill@4.2"
    assert search_scope(sources, "quill@3.2", None) == "quill@3.2"
    with pytest.raises(InvalidArgument, match="no source has version '7'"):
        search_scope(sources, None, "7")
    with pytest.raises(InvalidArgument, match="source 'site' has no versions"):
        search_scope(sources, "site", "3.2")
    # `quill:page` names the default version's page.
    assert sources.resolve("quill:settings.html").source.name == "quill@5.0"


def test_the_project_file_holds_a_pattern_its_versions_and_its_default(tmp_path: Path):
    (tmp_path / ".docslice.toml").write_text(
        'source = ["dj=https://d.example.org/en/{version}/"]\nversions = "3.2,4.2"\ndefault_version = "dj@3.2"\n'
    )
    found = remembered_sources(tmp_path, environ={})
    assert found is not None and found.specs == (
        "dj@3.2=https://d.example.org/en/3.2/",
        "dj@4.2=https://d.example.org/en/4.2/",
    )
    args = Namespace(source=[], default_version=["dj@4.2"])
    assert default_versions(args) == {"dj": "4.2"}  # the command line's wins


def test_search_in_doc_without_an_index_says_which_versions_hold_a_missing_page():
    tools = make_tools(*LOCAL)
    try:
        with pytest.raises(PageNotFound) as exc:
            run(tools.search_in_doc("quill@5.0:async.html", "await", version="3.2"))
        assert "is not in 3.2; in 4.2: quill@4.2:async.html; in 5.0: quill@5.0:async.html" in str(exc.value)
        text = run(tools.search_in_doc("quill:settings.html", "cache default", version="4.2"))
        assert "redis" in text and "memcached" not in text
    finally:
        run(tools.aclose())


def test_two_local_versions_holding_the_same_file_name_are_read_each_from_its_own_folder():
    tools = make_tools(*LOCAL)
    try:
        texts = [
            run(tools.search_in_doc(f"quill@{v}:settings.html", "cache default")) for v in ("3.2", "4.2")
        ]
        assert "memcached" in texts[0] and "redis" not in texts[0]
        assert "redis" in texts[1] and "memcached" not in texts[1]  # not the first folder's page from memory
    finally:
        run(tools.aclose())
