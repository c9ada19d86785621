"""A Document's renderer: a section's own markdown, converted on first use."""

from __future__ import annotations

from docs_mcp.convert.cleanup import heading_line
from docs_mcp.convert.mdsource import markdown_without_code
from docs_mcp.model.document import SEPARATOR
from docs_mcp.model.section import Section
from docs_mcp.text.toollines import shifted, unforgeable


def render_section(sec: Section, include_code: bool) -> tuple[str, list[tuple[int, int] | None]]:
    """A section's own markdown (heading line, then its body) and its entries' spans in it: a Document's renderer."""
    from docs_mcp.convert.markdown import convert  # on first use: a server that only searches never loads it

    spans: list[tuple[int, int] | None] = []
    if sec.body_md is not None:
        body = sec.body_md if include_code else markdown_without_code(sec.body_md)
    else:
        body, spans = convert(sec.body_html, include_code, len(sec.entries))
    # The page's own lines shaped like a tool's are escaped: the tools' lines around this text stay theirs.
    body, places = unforgeable(body)
    if places:
        spans = [None if sp is None else (shifted(sp[0], places), shifted(sp[1], places)) for sp in spans]
    head = heading_line(sec.level, sec.title)
    text = f"{head}{SEPARATOR}{body}" if head and body else head or body
    shift = len(head) + len(SEPARATOR) if head and body else 0
    return text, [None if span is None else (span[0] + shift, span[1] + shift) for span in spans]
