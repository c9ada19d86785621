"""sources: --source parsing and the URL allow-list every tool call and redirect goes through."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SITE

from docs_mcp.errors import InvalidArgument, URLNotAllowed
from docs_mcp.fetch.sources import SourceSet, parse_source

ROOT = "https://example.org/docs/"


def remote(*specs: str) -> SourceSet:
    return SourceSet.from_specs(list(specs or [ROOT]))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """root/ with pages, a sub-folder with an index, a text file, and symlinks out of it."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "guide").mkdir(parents=True)
    outside.mkdir()
    (root / "page.html").write_text("<h1>Page</h1>")
    (root / "notes.md").write_text("# Notes")
    (root / "data.txt").write_text("plain text")
    (root / "guide" / "index.html").write_text("<h1>Guide</h1>")
    (outside / "secret.html").write_text("<h1>Secret</h1>")
    (root / "link.html").symlink_to(outside / "secret.html")
    (root / "linkdir").symlink_to(outside, target_is_directory=True)
    return root


# --- parse_source ------------------------------------------------------------------------------
def test_root_naming_a_page_scopes_to_its_directory():
    assert (
        parse_source("https://docs.python.org/3/library/index.html").root
        == "https://docs.python.org/3/library/"
    )


def test_root_gets_a_trailing_slash_and_a_lowercase_host():
    assert parse_source("https://Docs.Example.COM/Guide").root == "https://docs.example.com/Guide/"
    assert parse_source("https://example.org").root == "https://example.org/"


def test_named_url_source():
    src = parse_source("pg=https://www.postgresql.org/docs/16/")
    assert (src.name, src.root, src.is_local) == ("pg", "https://www.postgresql.org/docs/16/", False)


def test_named_directory_source():
    src = parse_source(f"mine={SITE}")
    assert (src.name, src.root, src.is_local) == ("mine", str(SITE), True)


@pytest.mark.parametrize(
    ("root", "name"),
    [
        ("https://docs.python.org/3/", "python-3"),
        ("https://docs.python.org/3.11/library/index.html", "python-3.11-library"),
        ("https://www.postgresql.org/docs/15/", "postgresql-15"),
        ("https://www.postgresql.org/docs/current/", "postgresql-current"),
        ("https://docs.djangoproject.com/en/5.0/", "djangoproject-5.0"),
        ("https://requests.readthedocs.io/en/latest/", "requests-latest"),
        ("https://nodejs.org/api/", "nodejs-api"),
        ("https://docs.rs/serde/", "serde"),
        ("https://fastapi.tiangolo.com/", "fastapi-tiangolo"),
        ("https://example.org", "example"),
        ("https://Docs.Example.COM/Guide/", "example-guide"),
        ("https://example.org/Über%20Uns/", "example-uber-uns"),
    ],
)
def test_default_name_is_the_host_without_generic_labels_then_the_path(root, name):
    assert parse_source(root).name == name


def test_default_name_is_the_same_whatever_else_is_configured():
    alone = remote("https://docs.python.org/3/").sources[0].name
    second = remote("https://www.postgresql.org/docs/15/", "https://docs.python.org/3/").sources[1].name
    assert alone == second == "python-3"


def test_default_name_of_a_loopback_address_without_a_path_is_localhost_and_its_port():
    assert parse_source("http://127.0.0.1:8000/").name == "localhost-8000"
    assert parse_source("http://localhost:8703/").name == "localhost-8703"
    assert parse_source("http://[::1]:9000/").name == "localhost-9000"
    assert parse_source("http://10.1.2.3/").name == "10.1.2.3"


def test_default_name_of_an_address_with_a_path_is_the_path():
    assert parse_source("http://127.0.0.1:8000/python/3/").name == "python-3"


def test_long_default_names_are_cut_at_a_word():
    name = parse_source("https://example.org/" + "/".join(["segment"] * 12) + "/").name
    assert len(name) <= 40 and name.endswith("segment") and name.startswith("example-segment")


def test_default_name_of_a_directory_is_its_folder_name():
    assert parse_source(str(SITE)).name == "site"


def test_default_name_of_a_generic_output_folder_is_its_parents(tmp_path):
    html = tmp_path / "python3.11" / "html"
    html.mkdir(parents=True)
    assert parse_source(str(html)).name == "python3.11"
    built = tmp_path / "My Project" / "docs" / "_build" / "html"
    built.mkdir(parents=True)
    assert parse_source(str(built)).name == "my-project"


def test_nonexistent_directory_is_an_invalid_argument(tmp_path):
    with pytest.raises(InvalidArgument, match="neither an http"):
        parse_source(str(tmp_path / "missing"))


def test_two_roots_on_one_host_get_distinct_names():
    names = [s.name for s in remote("https://example.org/a/", "https://example.org/b/").sources]
    assert names == ["example-a", "example-b"]


def test_clashing_default_names_get_numbered_suffixes_in_order():
    specs = ["http://127.0.0.1:8000/", "http://127.0.0.1:8000/docs/", "http://localhost:8000/"]
    assert [s.name for s in remote(*specs).sources] == [
        "localhost-8000",
        "localhost-8000-2",
        "localhost-8000-3",
    ]


def test_given_names_are_kept_and_derived_names_step_aside():
    sources = remote("https://docs.python.org/3/", "python-3=https://example.org/").sources
    assert [(s.name, s.root) for s in sources] == [
        ("python-3-2", "https://docs.python.org/3/"),
        ("python-3", "https://example.org/"),
    ]


def test_the_same_given_name_twice_is_refused():
    with pytest.raises(InvalidArgument, match="named pg"):
        remote("pg=https://example.org/a/", "pg=https://example.org/b/")


# --- resolve: http roots -----------------------------------------------------------------------
def test_url_under_the_root_is_accepted_with_its_fragment_split_off():
    loc = remote().resolve("https://example.org/docs/guide/intro.html#install")
    assert loc.key == "https://example.org/docs/guide/intro.html"
    assert loc.fragment == "install"
    assert loc.source.root == ROOT


def test_url_on_another_host_is_refused_naming_the_roots():
    with pytest.raises(URLNotAllowed) as exc:
        remote().resolve("https://evil.example.net/docs/page.html")
    assert "not allowed" in str(exc.value)
    assert ROOT in str(exc.value)


def test_dotdot_escaping_an_http_root_is_refused():
    with pytest.raises(URLNotAllowed, match="outside the configured roots"):
        remote().resolve("https://example.org/docs/../admin/users.html")


def test_encoded_dotdot_escaping_an_http_root_is_refused():
    with pytest.raises(URLNotAllowed):
        remote().resolve("https://example.org/docs/%2e%2e/admin/users.html")


def test_prefix_sibling_of_the_root_is_refused():
    with pytest.raises(URLNotAllowed):
        remote().resolve("https://example.org/docs-internal/page.html")


def test_dotdot_that_stays_inside_the_root_is_accepted():
    assert remote().resolve("https://example.org/docs/a/../b.html").key == "https://example.org/docs/b.html"


@pytest.mark.parametrize("url", ["ftp://example.org/docs/x.html", "javascript:alert(1)", "data:text/html,hi"])
def test_non_http_scheme_is_refused(url):
    with pytest.raises(URLNotAllowed) as exc:
        remote().resolve(url)
    assert ROOT in str(exc.value)


def test_relative_path_resolves_against_the_only_http_root():
    assert remote().resolve("guide/intro.html").key == "https://example.org/docs/guide/intro.html"


def test_relative_path_climbing_out_of_an_http_root_is_refused():
    with pytest.raises(URLNotAllowed, match="escapes the root"):
        remote().resolve("guide/../../admin.html")


def test_empty_url_is_an_invalid_argument():
    with pytest.raises(InvalidArgument, match="url is empty"):
        remote().resolve("  ")


# --- resolve: local roots ----------------------------------------------------------------------
def test_local_relative_path_is_accepted(tree):
    loc = SourceSet.from_specs([str(tree)]).resolve("page.html#intro")
    assert (loc.key, loc.fragment) == ("page.html", "intro")
    assert loc.path == tree / "page.html"


def test_local_absolute_path_under_the_root_is_accepted(tree):
    assert SourceSet.from_specs([str(tree)]).resolve(str(tree / "notes.md")).key == "notes.md"


@pytest.mark.parametrize(
    "url", ["../outside/secret.html", "guide/../../outside/secret.html", "%2e%2e/outside/secret.html"]
)
def test_local_dotdot_escape_is_refused(tree, url):
    with pytest.raises(URLNotAllowed, match="escapes the local root"):
        SourceSet.from_specs([str(tree)]).resolve(url)


@pytest.mark.parametrize("url", ["link.html", "linkdir/secret.html"])
def test_symlink_pointing_out_of_the_root_is_refused(tree, url):
    with pytest.raises(URLNotAllowed, match="escapes the local root"):
        SourceSet.from_specs([str(tree)]).resolve(url)


def test_absolute_path_outside_every_root_is_refused(tree):
    with pytest.raises(URLNotAllowed, match="outside the configured roots"):
        SourceSet.from_specs([str(tree)]).resolve(str(tree.parent / "outside" / "secret.html"))


@pytest.mark.parametrize("url", ["guide", "guide/"])
def test_directory_maps_to_its_index_html(tree, url):
    assert SourceSet.from_specs([str(tree)]).resolve(url).key == "guide/index.html"


def test_non_documentation_file_is_refused(tree):
    with pytest.raises(URLNotAllowed, match=r"only \.html, \.htm, \.md files"):
        SourceSet.from_specs([str(tree)]).resolve("data.txt")


# --- display_url and redirects ------------------------------------------------------------------
def test_display_url_is_the_bare_path_with_one_local_source(tree):
    sources = SourceSet.from_specs([str(tree)])
    assert sources.display_url(sources.resolve("guide/index.html")) == "guide/index.html"


def test_display_url_names_the_source_with_two_local_sources(tree):
    other = tree.parent / "other"
    other.mkdir()
    (other / "a.html").write_text("<h1>A</h1>")
    sources = SourceSet.from_specs([str(tree), str(other)])
    assert sources.display_url(sources.resolve("page.html")) == "root:page.html"
    assert sources.display_url(sources.resolve("a.html")) == "other:a.html"
    assert sources.resolve("other:a.html").path == other / "a.html"


def test_display_url_of_an_http_page_is_its_url():
    sources = remote()
    assert sources.display_url(sources.resolve("a.html#x")) == "https://example.org/docs/a.html"


def test_redirect_inside_the_root_is_allowed():
    assert (
        remote().check_redirect("https://example.org/docs/new.html").key
        == "https://example.org/docs/new.html"
    )


def test_redirect_to_another_host_is_refused():
    with pytest.raises(URLNotAllowed, match="outside the configured roots"):
        remote().check_redirect("https://elsewhere.example.net/docs/new.html")


# --- bounded and canonical (issue 13) ---------------------------------------------------------
def test_an_unknown_source_name_is_echoed_cut():
    with pytest.raises(InvalidArgument) as exc:
        remote().get("s" * 100_000)
    assert len(str(exc.value)) < 300


def test_an_address_that_grows_past_the_limit_once_encoded_is_refused():
    with pytest.raises(URLNotAllowed, match="once percent-encoded"):
        remote().resolve(ROOT + "é" * 2_000)


def test_keys_are_the_percent_encoded_form_the_origin_receives():
    assert remote().resolve(ROOT + "a b/é.html").key == ROOT + "a%20b/%C3%A9.html"
    assert remote().resolve(ROOT + "a%20b/%c3%a9.html").key == ROOT + "a%20b/%C3%A9.html"


def test_the_default_port_is_the_same_root():
    assert remote("http://example.org:80/docs/").resolve("http://example.org/docs/x.html").key == (
        "http://example.org/docs/x.html"
    )


@pytest.mark.parametrize(
    "url", ["https://example.org/docs/%2e%2e/x.html", "https://example.org/docs/..%5cx.html"]
)
def test_a_discovery_url_must_be_canonical_and_on_the_origin(url):
    sources = remote()
    with pytest.raises(URLNotAllowed):
        sources.discovery_url(url, sources.sources[0])
    assert sources.discovery_url("https://example.org/robots.txt", sources.sources[0]) == (
        "https://example.org/robots.txt"
    )
    with pytest.raises(URLNotAllowed, match="not on the origin"):
        sources.discovery_url("https://example.org:444/robots.txt", sources.sources[0])
