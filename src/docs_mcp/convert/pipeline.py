"""The pipeline up to a Document: parse → main content → strip noise → sections (markdown comes lazily)."""

from __future__ import annotations

import hashlib

from docs_mcp.convert.anchors import linked_fragments
from docs_mcp.convert.mdsource import split_markdown
from docs_mcp.convert.parsing import find_main, page_title, parse_html, strip_noise
from docs_mcp.convert.render import render_section
from docs_mcp.convert.sections import split_html
from docs_mcp.fetch.fetching import RawPage
from docs_mcp.model.document import Document


def build_document(raw: RawPage, url: str, root=None, main=None, hidden=None) -> Document:
    """Parse, strip, section: the CPU part of the pipeline (markdown comes later, lazily).

    `root` is an already parsed tree of raw.text, `main` its content container and `hidden` its
    `hidden_elements`: the indexer finds them once, for links and the navigation test as well as for content.
    """
    if raw.kind == "markdown":
        title, sections = split_markdown(raw.text)
    else:
        root = parse_html(raw.text) if root is None else root
        title = page_title(root)
        # Counted before noise goes: the site's own tables of contents and permalinks name its ids.
        linked = linked_fragments(root, url)
        main = find_main(root) if main is None else main
        strip_noise(main, hidden)
        sections = split_html(main, linked)
    if not title:
        title = url.rsplit("/", 1)[-1]
    digest = hashlib.sha1(raw.text.encode("utf-8", "replace")).hexdigest()
    return Document(
        url,
        raw.location.source.name,
        title,
        tuple(sections),
        raw.fetched_at,
        raw.etag,
        raw.last_modified,
        digest,
        render_section,
    )
