"""Discovery: which pages a source has (sitemap, llms.txt, links, local folder), all scoped to its root."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import urljoin, urlsplit, urlunsplit

from lxml import etree
from protego import Protego

from docs_mcp.errors import DocsMCPError
from docs_mcp.fetch.bodies import gunzip
from docs_mcp.fetch.sources import Source, SourceSet
from docs_mcp.settings import LOCAL_SUFFIXES, MAX_BODY_BYTES, USER_AGENT

#: Links to these are assets or downloads, never documentation pages: not worth a request.
SKIP_EXTENSIONS = frozenset(
    [
        ".txt",
        ".rst",
        ".zip",
        ".gz",
        ".tgz",
        ".bz2",
        ".xz",
        ".tar",
        ".pdf",
        ".epub",
        ".png",
        ".jpg",
        ".jpeg",
        ".gif",
        ".svg",
        ".webp",
        ".ico",
        ".css",
        ".js",
        ".json",
        ".xml",
        ".mp4",
        ".webm",
        ".mp3",
        ".woff",
        ".woff2",
        ".ttf",
        ".eot",
        ".map",
        ".py",
        ".ipynb",
        ".whl",
        ".exe",
        ".dmg",
        ".msi",
        ".csv",
        ".yaml",
        ".yml",
        ".tex",
    ]
)
#: A quoted page address in a script: `"d6/dcd/md__readme.html#anchor"`, `'files.html'`.
_SCRIPT_PAGE = re.compile(r"""["']([^"'\s<>()]{1,300}?\.html?)(?:#[^"'\s]*)?["']""")
_LLMS_LINK = re.compile(r"\[([^\[\]]*)\]\(([^)\s\[]+)\)")


def normalize_url(url: str) -> str | None:
    """A crawlable page URL: fragment and query dropped (no query-string explosions), assets skipped."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return None
    path = parts.path or "/"
    last = path.rsplit("/", 1)[-1].lower()
    if "." in last and "." + last.rsplit(".", 1)[-1] in SKIP_EXTENSIONS:
        return None
    return urlunsplit((parts.scheme, parts.netloc.lower(), path, "", ""))


#: A link of a parsed page that can lead to a page: its href (stripped) and its <a> element.
Anchor = tuple[str, etree._Element]
#: A page folder as `urlsplit` gives it: scheme, netloc and the path up to its last "/".
Folder = tuple[str, str, str]
#: Hrefs that never name a page.
_NOT_PAGES = ("#", "mailto:", "javascript:", "tel:")


def page_anchors(root: etree._Element) -> list[Anchor]:
    """The page's <a> elements whose href can name a page, in document order: one walk serves the crawl's
    links (`page_links`) and the words they say (crawl/link_words.py)."""
    out = []
    for a in root.iter("a"):
        href = (a.get("href") or "").strip()
        if href and not href.startswith(_NOT_PAGES):
            out.append((href, a))
    return out


def page_links(root: etree._Element, base: str, anchors: list[Anchor] | None = None) -> list[str]:
    """Absolute hrefs of a parsed page (before noise stripping: navigation is how a crawl finds pages)."""
    base_el = root.find(".//base")
    if base_el is not None and base_el.get("href"):
        base = urljoin(base, base_el.get("href"))
    folder = page_folder(base)
    links = page_anchors(root) if anchors is None else anchors
    out = [resolve_link(base, folder, href)[0] for href, _ in links]
    # The site's own scripts: some generators (Doxygen's tree view and menus) name their pages only there.
    out += [urljoin(base, src.strip()) for src in root.xpath("//script/@src") if is_script(src.strip())]
    return out


def page_folder(url: str) -> Folder:
    """The folder of a page's URL, which its relative links resolve against (see `resolve_link`)."""
    scheme, netloc, path, _, _ = urlsplit(url)
    return scheme, netloc, path[: path.rfind("/") + 1]


def resolve_link(base: str, folder: Folder, href: str) -> tuple[str, str | None]:
    """urljoin(base, href) and the page key it names (`normalize_url`, '' for none; None when the join
    depends on the page, not only on its folder), memoized per folder and href."""
    # A relative reference resolves against its base's directory alone (RFC 3986 §5.2: the base's last
    # segment, query and fragment are dropped), so pages of one folder share their resolved links: ~126 per
    # Javadoc page, mostly the same, were 16% of a worker's time; the page key beside the join spares the
    # link words (crawl/link_words.py) a cache of their own.
    key = (folder, href)
    hit = _JOINED.get(key)
    if hit is not None:
        return hit
    joined = urljoin(base, href)
    # Only a href with no path ("?q", "https:", "//host") may keep the base's own: one without a ":" or a
    # leading "//" has a path (it starts with neither "#" nor "?").
    if href.startswith("?") or ((":" in href or href.startswith("//")) and not urlsplit(href).path):
        return joined, None
    if len(_JOINED) >= _JOINED_MAX:
        _JOINED.clear()
    page = normalize_url(joined) or ""
    _JOINED[key] = hit = joined, joined if page == joined else page  # one string where they are the same
    return hit


_JOINED: dict[tuple[Folder, str], tuple[str, str]] = {}
_JOINED_MAX = 50_000  # ~20 MB: a few hundred pages of one folder


@lru_cache(maxsize=1 << 16)  # a crawl asks about the same navigation links on every page
def is_script(url: str) -> bool:
    """A JavaScript file named as a link (read for the pages it names, never indexed)."""
    return urlsplit(url).path.endswith(".js")


def script_links(text: str, base: str) -> list[str]:
    """The pages a script names as quoted relative or absolute `….html` strings (menus, tree views)."""
    return [urljoin(base, m.group(1)) for m in _SCRIPT_PAGE.finditer(text)]


def in_scope(sources: SourceSet, source: Source, url: str) -> str | None:
    """The canonical key of `url` if it is a page under `source`'s root, else None."""
    norm = normalize_url(url)
    if norm is None:
        return None
    try:
        loc = sources.resolve(norm)
    except DocsMCPError:
        return None
    return loc.key if loc.source is source else None


def parse_sitemap(body: bytes, limit: int = MAX_BODY_BYTES) -> tuple[list[str], list[str]]:
    """(page URLs, nested sitemap URLs) of a sitemap or sitemap index; gzip is detected by magic bytes and
    inflated to `limit` bytes at most (a corrupt or cut archive lists what came before the damage)."""
    if body[:2] == b"\x1f\x8b":
        body = gunzip(body, limit)
        if not body:
            return [], []
    try:
        root = etree.fromstring(
            body, parser=etree.XMLParser(recover=True, resolve_entities=False, no_network=True)
        )
    except etree.XMLSyntaxError:
        return [], []
    if root is None:
        return [], []
    pages, nested = [], []
    for loc in root.iter("{*}loc"):
        text = (loc.text or "").strip()
        parent = loc.getparent()
        if not text or parent is None:
            continue
        if etree.QName(parent).localname == "sitemap":
            nested.append(text)
        else:
            pages.append(text)
    return pages, nested


def parse_llms_txt(text: str, base: str) -> list[str]:
    """Links of an llms.txt file, absolute."""
    return [urljoin(base, m.group(2)) for m in _LLMS_LINK.finditer(text)]


@dataclass(frozen=True)
class Robots:
    """A site's robots.txt rules as RFC 9309 reads them (Protego, Scrapy's parser): `*` and `$` wildcards, and
    the longest matching rule wins (an `Allow` inside a broader `Disallow` allows)."""

    rules: Protego

    def allows(self, url: str, agent: str = USER_AGENT) -> bool:
        return self.rules.can_fetch(url, agent)


def parse_robots(text: str) -> tuple[Robots, list[str]]:
    """A robots.txt's rules and the sitemaps it names."""
    rules = Protego.parse(text)
    return Robots(rules), list(rules.sitemaps)


def local_pages(source: Source, limit: int) -> list[str]:
    """Every .html/.htm/.md file under a local root, as keys relative to it, sorted, up to `limit`."""
    root = Path(source.root)
    found = []
    for path in sorted(root.rglob("*")):
        if path.suffix.lower() in LOCAL_SUFFIXES and path.is_file():
            real = path.resolve()
            if real.is_relative_to(root):  # a symlink out of the root is not part of the source
                found.append(path.relative_to(root).as_posix())
                if len(found) >= limit:
                    break
    return found
