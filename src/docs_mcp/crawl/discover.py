"""Which pages a remote source has: robots.txt, then sitemaps, then llms.txt; a link crawl from the root when
none of them lists a page."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from docs_mcp.errors import DocsMCPError
from docs_mcp.fetch.discovery import Robots, in_scope, parse_llms_txt, parse_robots, parse_sitemap
from docs_mcp.fetch.fetching import Fetcher
from docs_mcp.fetch.sources import Source, SourceSet
from docs_mcp.settings import ROBOTS_MAX_BYTES

#: Sitemap files read at most per build (a sitemap index names the others).
MAX_SITEMAPS = 50


@dataclass(frozen=True)
class Discovery:
    """What discovery found: robots.txt's rules (None: none to obey), the pages to start from, and how."""

    robots: Robots | None
    keys: list[str]
    #: "sitemap", "llms.txt", "sitemap+llms.txt", or "crawl" (from the root).
    method: str


async def discover(fetcher: Fetcher, sources: SourceSet, source: Source, limit: int) -> Discovery:
    """robots.txt, sitemaps and llms.txt of a remote source; files are read up to `limit` bytes.

    Every discovery file is fetched on the source's own origin only, redirects included: robots.txt refused
    or failing counts as absent (never obeyed), and sitemaps named elsewhere are skipped."""
    parts = urlsplit(source.root)
    host_root = f"{parts.scheme}://{parts.netloc}/"
    robots = None
    sitemap_urls = [source.root + "sitemap.xml"]
    body = await fetcher.fetch_file(host_root + "robots.txt", source, ROBOTS_MAX_BYTES)
    if body is not None:
        robots, named = parse_robots(body.decode("utf-8", "replace"))
        sitemap_urls = named + [u for u in sitemap_urls if u not in named]
    pages = await _sitemap_pages(fetcher, sources, source, sitemap_urls, limit)
    keys = _unique(k for k in (in_scope(sources, source, u) for u in pages) if k)
    method = "sitemap" if keys else ""
    body = await fetcher.fetch_file(source.root + "llms.txt", source, limit)
    if body:
        listed = parse_llms_txt(body.decode("utf-8", "replace"), source.root)
        llms = [k for k in (in_scope(sources, source, u) for u in listed) if k]
        if llms:
            keys = _unique([*keys, *llms])
            method = f"{method}+llms.txt" if method else "llms.txt"
    if keys:
        return Discovery(robots, keys, method)
    return Discovery(robots, [source.root], "crawl")


async def _sitemap_pages(
    fetcher: Fetcher, sources: SourceSet, source: Source, urls: list[str], limit: int
) -> list[str]:
    """The page URLs of the sitemaps (and the sitemap indexes they nest), MAX_SITEMAPS files at most."""
    pages: list[str] = []
    fetched = 0
    while urls and fetched < MAX_SITEMAPS:
        url = urls.pop(0)
        try:
            url = sources.discovery_url(url, source)
        except DocsMCPError:  # on another origin (or unreadable): not fetched
            continue
        body = await fetcher.fetch_file(url, source, limit)
        fetched += 1
        if body:
            found, nested = parse_sitemap(body, limit)
            pages.extend(found)
            urls.extend(nested)
    return pages


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))
