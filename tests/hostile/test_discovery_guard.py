"""Discovery files (robots.txt, sitemaps, llms.txt) go through the same guard as tool fetches: only on the
source's own origin, every redirect hop checked before it is sent, bodies capped while they inflate."""

from __future__ import annotations

import tracemalloc

import pytest

from .conftest import indexed, indexer_for, outside_root
from .origin import gzip_bomb, page, redirect, static

pytestmark = pytest.mark.anyio

ROBOTS_DISALLOW_ALL = static(b"User-agent: *\nDisallow: /\n", "text/plain")


async def index_root(tmp_path, origin, **settings):
    """Index the origin's /docs/ root; returns (indexer, its progress report)."""
    indexer = indexer_for(tmp_path, origin.url + "docs/", **settings)
    try:
        [report] = await indexer.run()
    finally:
        await indexer.fetcher.aclose()
    return indexer, report


@pytest.mark.parametrize(
    "where",
    ["other-port", "other-host", "file", "loop", "escape"],
)
async def test_a_robots_txt_redirected_off_the_origin_is_not_fetched_and_not_obeyed(
    tmp_path, make_origin, canary, alt_canary, where
):
    target = {
        "other-port": canary.url + "robots.txt",
        "other-host": alt_canary.url + "robots.txt",
        "file": "file:///etc/passwd",
        "loop": "/robots.txt",
        "escape": "/docs/%2e%2e/robots.txt",
    }[where]
    origin = make_origin({"/robots.txt": redirect(target)})
    indexer, report = await index_root(tmp_path, origin)
    # Refused, so absent: the crawl indexes the site (the canary's "Disallow: /" would have left 0 pages).
    assert origin.url + "docs/page.html" in indexed(indexer)
    assert report.robots_skipped == 0
    assert outside_root(origin) == []
    assert origin.requests.count("/robots.txt") <= 6  # a loop stops at the redirect limit


async def test_a_robots_txt_redirected_within_the_origin_is_followed_and_obeyed(tmp_path, make_origin):
    origin = make_origin(
        {
            "/robots.txt": redirect("/docs/robots-real.txt"),
            "/docs/robots-real.txt": static(b"User-agent: *\nDisallow: /docs/guide/\n", "text/plain"),
        }
    )
    indexer, report = await index_root(tmp_path, origin)
    keys = indexed(indexer)
    assert origin.url + "docs/page.html" in keys
    assert origin.url + "docs/guide/intro.html" not in keys
    assert report.robots_skipped == 1


async def test_a_sitemap_redirected_to_another_port_is_not_fetched(tmp_path, make_origin, canary):
    origin = make_origin({"/docs/sitemap.xml": redirect(canary.url + "sitemap.xml")})
    hidden = origin.url + "docs/only-in-sitemap.html"
    canary.routes["/sitemap.xml"] = static(
        f"<urlset><url><loc>{hidden}</loc></url></urlset>".encode(), "text/xml"
    )
    origin.routes["/docs/only-in-sitemap.html"] = static(page("Only in the canary's sitemap"))
    indexer, report = await index_root(tmp_path, origin)
    assert hidden not in indexed(indexer)
    assert report.method == "crawl"


async def test_a_sitemap_named_in_robots_on_another_origin_is_not_fetched(
    tmp_path, make_origin, canary, alt_canary
):
    robots = f"User-agent: *\nSitemap: {canary.url}sitemap.xml\nSitemap: {alt_canary.url}sitemap.xml\n"
    origin = make_origin({"/robots.txt": static(robots.encode(), "text/plain")})
    indexer, _ = await index_root(tmp_path, origin)
    assert origin.url + "docs/page.html" in indexed(indexer)


async def test_llms_txt_redirected_off_the_origin_is_not_fetched(tmp_path, make_origin, canary):
    origin = make_origin({"/docs/llms.txt": redirect(canary.url + "llms.txt")})
    _, report = await index_root(tmp_path, origin)
    assert report.method == "crawl"


@pytest.mark.parametrize("path", ["/robots.txt", "/docs/sitemap.xml", "/docs/llms.txt"])
async def test_a_gzip_bomb_discovery_file_is_inflated_only_up_to_the_limit(tmp_path, make_origin, path):
    origin = make_origin({path: static(gzip_bomb(100), "text/plain", Content_Encoding="gzip")})
    tracemalloc.start()
    try:
        indexer, _ = await index_root(tmp_path, origin)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert origin.url + "docs/page.html" in indexed(indexer)
    assert peak < 30_000_000, f"peak {peak:,} bytes for a 100 MB bomb"


async def test_a_gzip_file_bomb_sitemap_is_inflated_only_up_to_the_limit(tmp_path, make_origin):
    # Served as a .gz file (no Content-Encoding): parse_sitemap inflates it itself.
    origin = make_origin({"/docs/sitemap.xml": static(gzip_bomb(100), "application/gzip")})
    tracemalloc.start()
    try:
        indexer, _ = await index_root(tmp_path, origin)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert origin.url + "docs/page.html" in indexed(indexer)
    assert peak < 30_000_000, f"peak {peak:,} bytes for a 100 MB bomb"


async def test_a_crawl_obeys_robots_wildcards_and_the_longest_rule(tmp_path, make_origin):
    # urllib.robotparser took `*` and `$` literally and let the first rule in file order win: it crawled
    # page.html and skipped guide/intro.html.
    robots = (
        b"User-agent: *\nDisallow: /docs/*.html$\nDisallow: /docs/guide/\nAllow: /docs/guide/intro.html\n"
    )
    origin = make_origin({"/robots.txt": static(robots, "text/plain")})
    indexer, report = await index_root(tmp_path, origin)
    keys = indexed(indexer)
    assert origin.url + "docs/guide/intro.html" in keys
    assert origin.url + "docs/page.html" not in keys
    assert "/docs/page.html" not in origin.requests
    assert report.robots_skipped == 1
