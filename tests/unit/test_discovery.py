"""discovery: page URLs from sitemaps, llms.txt, robots.txt and local folders."""

from __future__ import annotations

import gzip

import lxml.html
import pytest

from docs_mcp.fetch.discovery import (
    local_pages,
    normalize_url,
    page_links,
    parse_llms_txt,
    parse_robots,
    parse_sitemap,
)
from docs_mcp.fetch.sources import Source

URLSET = b"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc> https://ex.org/docs/a.html </loc><lastmod>2025-01-01</lastmod></url>
  <url><loc>https://ex.org/docs/guide/b.html</loc></url>
  <url><loc></loc></url>
</urlset>"""
INDEX = b"""<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>https://ex.org/sitemap-1.xml</loc></sitemap>
  <sitemap><loc>https://ex.org/sitemap-2.xml.gz</loc></sitemap>
</sitemapindex>"""
PAGES = ["https://ex.org/docs/a.html", "https://ex.org/docs/guide/b.html"]


# --- normalize_url -------------------------------------------------------------------------------
def test_normalize_url_drops_fragment_and_query_and_lowercases_the_host():
    assert normalize_url("https://Ex.ORG/docs/a.html?highlight=x#install") == "https://ex.org/docs/a.html"


def test_normalize_url_gives_a_bare_host_a_path():
    assert normalize_url("https://ex.org") == "https://ex.org/"


@pytest.mark.parametrize(
    "url",
    [
        "https://ex.org/img/curve.PNG",
        "https://ex.org/robots.txt",
        "https://ex.org/dl/docs.zip",
        "https://ex.org/_static/site.css",
    ],
)
def test_normalize_url_skips_assets(url):
    assert normalize_url(url) is None


@pytest.mark.parametrize(
    "url", ["https://ex.org/v1.2/guide", "https://ex.org/docs/page.md", "https://ex.org/docs/page.html"]
)
def test_normalize_url_keeps_pages(url):
    assert normalize_url(url) == url


def test_normalize_url_skips_other_schemes():
    assert normalize_url("mailto:docs@ex.org") is None
    assert normalize_url("ftp://ex.org/docs/a.html") is None


# --- page_links ----------------------------------------------------------------------------------
def test_page_links_are_absolute_and_skip_fragments_and_mailto():
    root = lxml.html.document_fromstring(
        '<html><body><a href="b.html">b</a><a href="#top">t</a><a href="mailto:x@y">m</a>'
        '<a href="/root.html">r</a><a href=" ../up.html ">u</a></body></html>'
    )
    assert page_links(root, "https://ex.org/docs/a.html") == [
        "https://ex.org/docs/b.html",
        "https://ex.org/root.html",
        "https://ex.org/up.html",
    ]


def test_page_links_honour_a_base_element():
    root = lxml.html.document_fromstring('<html><head><base href="/v2/"></head><body><a href="x.html">x</a>')
    assert page_links(root, "https://ex.org/docs/a.html") == ["https://ex.org/v2/x.html"]


def test_a_link_without_a_path_is_joined_with_each_page_of_a_folder_not_the_first():
    # Joins are shared by the pages of a folder; "?v=2" and "https:" keep the page's own path instead.
    root = lxml.html.document_fromstring(
        '<html><body><a href="?v=2">q</a><a href="https:">s</a><a href="x.html">x'
    )
    assert page_links(root, "https://ex.org/docs/a.html") == [
        "https://ex.org/docs/a.html?v=2",
        "https://ex.org/docs/a.html",
        "https://ex.org/docs/x.html",
    ]
    assert page_links(root, "https://ex.org/docs/b.html") == [
        "https://ex.org/docs/b.html?v=2",
        "https://ex.org/docs/b.html",
        "https://ex.org/docs/x.html",
    ]


# --- parse_sitemap -------------------------------------------------------------------------------
def test_sitemap_urlset_lists_pages():
    assert parse_sitemap(URLSET) == (PAGES, [])


def test_sitemap_index_lists_nested_sitemaps():
    assert parse_sitemap(INDEX) == ([], ["https://ex.org/sitemap-1.xml", "https://ex.org/sitemap-2.xml.gz"])


def test_gzipped_sitemap_is_detected_by_its_magic_bytes():
    assert parse_sitemap(gzip.compress(URLSET)) == (PAGES, [])


@pytest.mark.parametrize(
    "body", [b"", b"not xml at all", b"<html><body>Not found</body></html>", b"\x00\xff\xfe"]
)
def test_garbage_sitemap_lists_nothing(body):
    assert parse_sitemap(body) == ([], [])


def test_truncated_xml_sitemap_keeps_what_it_could_read():
    assert parse_sitemap(URLSET[: URLSET.index(b"<url><loc>https://ex.org/docs/guide")]) == (PAGES[:1], [])


def test_corrupt_gzip_sitemap_lists_nothing():
    assert parse_sitemap(b"\x1f\x8b this is not gzip") == ([], [])


def test_cut_gzip_sitemap_keeps_what_it_could_read_like_cut_xml():
    assert parse_sitemap(gzip.compress(URLSET)[:-12]) == (PAGES, [])


def test_gzip_bomb_sitemap_is_inflated_only_up_to_the_limit():
    bomb = gzip.compress(URLSET[:-10] + b" " * 50_000_000 + b"</urlset>")
    assert parse_sitemap(bomb, limit=100_000) == (PAGES, [])


# --- parse_llms_txt ------------------------------------------------------------------------------
def test_llms_txt_links_are_resolved_against_its_url():
    text = (
        "# Tidepool\n\n> Tide data toolkit.\n\n## Docs\n\n- [Guide](guide/intro.md): start here\n"
        "- [API](/api/index.html)\n- [Elsewhere](https://other.example/x.html)\n"
    )
    assert parse_llms_txt(text, "https://ex.org/docs/llms.txt") == [
        "https://ex.org/docs/guide/intro.md",
        "https://ex.org/api/index.html",
        "https://other.example/x.html",
    ]


# --- parse_robots --------------------------------------------------------------------------------
ROBOTS = """User-agent: *
Disallow: /docs/private/
Sitemap: https://ex.org/sitemap.xml
sitemap: https://ex.org/docs/sitemap-2.xml
"""


def test_robots_disallow_rules_are_applied():
    robots, _ = parse_robots(ROBOTS)
    assert not robots.allows("https://ex.org/docs/private/keys.html", "docs-mcp")
    assert robots.allows("https://ex.org/docs/public.html", "docs-mcp")


def test_robots_sitemap_lines_are_returned_whatever_their_case():
    _, sitemaps = parse_robots(ROBOTS)
    assert sitemaps == ["https://ex.org/sitemap.xml", "https://ex.org/docs/sitemap-2.xml"]


# The standard library's parser (urllib.robotparser) read these wrong: it takes `*` and `$` literally and
# applies the first matching rule in file order; RFC 9309 has wildcards and the longest match winning.
WILDCARDS = """User-agent: *
Disallow: /*.pdf$
Disallow: /private*/
"""


@pytest.mark.parametrize(
    ("path", "allowed"),
    [
        ("/guide/manual.pdf", False),
        ("/guide/manual.pdf.html", True),  # `$`: the rule ends at .pdf
        ("/private/keys.html", False),
        ("/private-notes/keys.html", False),
        ("/privately.html", True),  # `/private*/` needs a slash after the wildcard
        ("/guide/index.html", True),
    ],
)
def test_robots_wildcards_and_end_anchors_follow_rfc_9309(path, allowed):
    robots, _ = parse_robots(WILDCARDS)
    assert robots.allows("https://ex.org" + path) is allowed


@pytest.mark.parametrize("order", ["disallow first", "allow first"])
def test_robots_the_longest_matching_rule_wins_whatever_the_order(order):
    rules = ["Disallow: /docs/", "Allow: /docs/public"]
    if order == "allow first":
        rules.reverse()
    robots, _ = parse_robots("User-agent: *\n" + "\n".join(rules) + "\n")
    assert robots.allows("https://ex.org/docs/public/intro.html")
    assert robots.allows("https://ex.org/docs/public.html")
    assert not robots.allows("https://ex.org/docs/internal.html")
    assert robots.allows("https://ex.org/blog/post.html")


def test_robots_a_group_for_docslice_replaces_the_group_for_everyone():
    robots, _ = parse_robots("User-agent: *\nDisallow: /a/\n\nUser-agent: docslice\nDisallow: /b/\n")
    assert robots.allows("https://ex.org/a/page.html")
    assert not robots.allows("https://ex.org/b/page.html")
    assert not robots.allows("https://ex.org/a/page.html", "other-bot")


# --- local_pages ---------------------------------------------------------------------------------
@pytest.fixture
def folder(tmp_path):
    root, outside = tmp_path / "docs", tmp_path / "outside"
    (root / "guide" / "deep").mkdir(parents=True)
    outside.mkdir()
    for name in ("index.html", "b.htm", "guide/intro.md", "guide/deep/z.HTML", "notes.txt", "img.png"):
        (root / name).write_text("x")
    (outside / "secret.html").write_text("secret")
    (root / "escape.html").symlink_to(outside / "secret.html")
    (root / "alias.html").symlink_to(root / "index.html")
    return Source("docs", str(root), True)


def test_local_pages_lists_documentation_files_sorted(folder):
    assert local_pages(folder, 100) == [
        "alias.html",
        "b.htm",
        "guide/deep/z.HTML",
        "guide/intro.md",
        "index.html",
    ]


def test_local_pages_respects_the_limit(folder):
    assert local_pages(folder, 2) == ["alias.html", "b.htm"]


def test_local_pages_skip_symlinks_out_of_the_root(folder):
    assert "escape.html" not in local_pages(folder, 100)
