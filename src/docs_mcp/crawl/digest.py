"""The indexer's worker processes: how they start, and the CPU part of indexing one page (document, links,
rows)."""

from __future__ import annotations

import os
import posixpath
import re
import signal
import threading
import time
from copy import deepcopy
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import unquote, urlsplit

from docs_mcp.convert.hidden import hidden_elements, walked_hidden_elements
from docs_mcp.convert.keyword_index import keyword_entries
from docs_mcp.convert.parsing import (
    find_main,
    generated_index_chars,
    normalize_space,
    parse_html,
    strip_noise,
)
from docs_mcp.convert.pipeline import build_document
from docs_mcp.convert.texinfo import texinfo_page
from docs_mcp.crawl.heap import TRIM_AFTER_CHARS, trim_heap
from docs_mcp.crawl.link_words import link_target, link_words
from docs_mcp.crawl.rows import VectorTexts, prepare_page, vector_texts
from docs_mcp.fetch.discovery import page_anchors, page_links, parse_llms_txt
from docs_mcp.fetch.fetching import RawPage
from docs_mcp.fetch.refresh import refreshes_away
from docs_mcp.fetch.sources import Location
from docs_mcp.search.semantic.signal import active_model
from docs_mcp.settings import PARENT_POLL_SECONDS, WORKER_NICENESS, mechanism_on
from docs_mcp.site_words import GENERATED_PAGES, SERVER_LISTING_TITLE
from docs_mcp.store.pagerows import PreparedPage
from docs_mcp.text.terms import tokenize

if TYPE_CHECKING:
    from lxml.html import HtmlElement

#: A page whose main text is mostly link text is a table of contents or an index: crawl it, don't rank it.
NAVIGATION_LINK_SHARE = 0.6
NAVIGATION_MIN_LINKS = 30
#: Text a page keeps without its chrome, at least, to be judged without it (GTK 4's method pages: 138+ chars).
NAVIGATION_MIN_TEXT = 100
#: A page whose text is at least this share generated keyword index is navigation too; a one-page book that
#: ends with its index is content first.
GENERATED_INDEX_SHARE = 0.5
_GENERATED = re.compile("|".join(GENERATED_PAGES))
_SERVER_LISTING = re.compile(SERVER_LISTING_TITLE)


def server_listing(title: str) -> bool:
    """Whether a page is a web server's listing of a folder (`Directory listing for /docs/`), by its title."""
    return _SERVER_LISTING.match(title) is not None


def generated(loc: Location) -> bool:
    """A generated listing or source view (`_modules/`, `genindex.html`, `search.html`, …), by its path."""
    below = loc.key if loc.source.is_local else urlsplit(loc.key.removeprefix(loc.source.root)).path
    return _GENERATED.search(below) is not None


class Digest(NamedTuple):
    """A page digested: its rows, outgoing links, whether it is navigation, and the texts its section vectors
    are to be embedded from by the process that holds the model (None: embedded already, or none to have)."""

    page: PreparedPage
    links: list[str]
    navigation: bool
    vector_texts: VectorTexts | None = None


def digest(raw: RawPage, url: str, key: str = "", embed: bool = True) -> Digest:
    """CPU part of indexing one page (runs in a worker process): its rows, outgoing links, is-navigation.

    Tokenizing and compressing happen here too, so the process that serves searches only runs SQL. Without
    `embed`, the section vectors are left to the caller (`Digest.vector_texts`): the workers then never load
    the model, which the indexing process holds once (a server's holds it anyway, for its searches).
    """
    out = _digest(raw, url, key or raw.location.uid, embed)
    if len(raw.text) >= TRIM_AFTER_CHARS:  # its tree and texts are freed now: hand their memory back
        trim_heap()
    return out


def _digest(raw: RawPage, url: str, key: str, embed: bool) -> Digest:
    keywords: list[tuple[str, str, str]] = []
    words: tuple[tuple[str, str], ...] = ()
    if raw.kind == "markdown":
        doc, links, navigation = build_document(raw, url), parse_llms_txt(raw.text, raw.location.key), False
    else:
        root = parse_html(raw.text)
        keywords = keyword_links(root, raw.location, key)
        # One walk of each kind serves the links, their words and the content: the tree is not changed
        # before build_document strips its content container.
        anchors, hidden = page_anchors(root), hidden_elements(root, raw.text)
        words = link_words(root, raw.location, key, anchors, hidden)
        links = page_links(root, raw.location.key, anchors) if not raw.location.source.is_local else []
        main = find_main(root)
        navigation = navigation_page(main, raw.text)
        doc = build_document(raw, url, root, main, hidden)
    # A page that only sends the reader on (Texinfo: one per node) is its target's stand-in, not a result; a
    # generated listing (by its path) or a web server's folder listing (by its title) is none either.
    listed = not (navigation or generated(raw.location) or server_listing(doc.title) or refreshes_away(raw))
    page = prepare_page(key, doc, listed, links, keywords, embed, words)
    texts = vector_texts(doc) if listed and not embed and active_model() else None
    return Digest(page, links, navigation, texts)


def navigation_page(main: HtmlElement, html: str | None = None) -> bool:
    """Mostly links, with the site's chrome and without it; a page that keeps next to no text without its
    chrome (a table of contents inside a <nav>) is judged with it (`html`: the page's text, when the caller
    has it)."""
    if not mostly_links(main):
        return False
    bare = without_noise(main, html)
    return mostly_links(bare) or len(normalize_space(bare.text_content())) < NAVIGATION_MIN_TEXT


def without_noise(main: HtmlElement, html: str | None = None) -> HtmlElement:
    """A copy of the content without the site's chrome: gi-docgen puts a method's page in <body> beside a
    sidebar of 60 links (GTK 4: 974 of 5,792 pages), which counted would make it a table of contents."""
    copy = deepcopy(main)  # a tree of its own: whether Texinfo wrote the page is told from the page's head
    # What the copy hides, every element looked at as strip_noise would, the page's text sparing the walk.
    hidden = None if html is None else walked_hidden_elements(copy, html)
    strip_noise(copy, hidden, texinfo=texinfo_page(main.getroottree().getroot()))
    return copy


def mostly_links(main: HtmlElement) -> bool:
    """Whether an element's text is mostly link text (a table of contents) or a generated keyword index."""
    anchors = main.findall(".//a")
    link_chars = sum(len(normalize_space(a.text_content())) for a in anchors)
    total = len(normalize_space(main.text_content())) or 1
    return (
        len(anchors) >= NAVIGATION_MIN_LINKS and link_chars / total > NAVIGATION_LINK_SHARE
    ) or generated_index_chars(main) >= GENERATED_INDEX_SHARE * total


def keyword_links(root: HtmlElement, loc: Location, key: str) -> list[tuple[str, str, str]]:
    """The page's keyword-index entries as (term, target page key, anchor); links into the page itself (a
    one-page book's own index) and out of the site are left to the page."""
    if not mechanism_on("index-bridge"):
        return []
    out = []
    for entry in keyword_entries(root):
        parts = urlsplit(entry.href)
        if parts.scheme or parts.netloc:
            continue
        target = link_target(loc, key, entry.href)
        anchor = unquote(parts.fragment)
        # An entry naming its own anchor or page (`filter()` → `#…QuerySet.filter`, Javadoc's classes and
        # members, `DEALLOCATE` → sql-deallocate.html) repeats a name its page defines: no new words.
        named = set(tokenize(anchor)) | set(tokenize(posixpath.basename(parts.path)))
        if target and target != key and not set(tokenize(entry.term)) <= named:
            out.append((entry.term, target, anchor))
    return out


def worker_init(parent: int, nice: bool = False) -> None:
    """Worker processes end when the indexing process is gone (even killed with -9): no orphans. A server's
    run below its priority (`nice`): a search never queues behind parsing for a core."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group; the parent shuts us down
    if nice:
        lower_priority()
    if os.name != "posix":
        return
    ppid = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(PARENT_POLL_SECONDS)
            try:
                os.kill(parent, 0)
            except ProcessLookupError:
                os._exit(0)
            except PermissionError:  # alive, or its pid reused by another user: the ppid check decides
                pass
            if os.getppid() != ppid:  # our own parent (the forkserver) went away with it
                os._exit(0)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def lower_priority(tid: int = 0) -> None:
    """Nice this process (or one of its threads, on Linux) by WORKER_NICENESS; nothing where unsupported."""
    try:
        if tid:
            os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + WORKER_NICENESS)
        else:
            os.nice(WORKER_NICENESS)
    except (AttributeError, OSError):
        pass
