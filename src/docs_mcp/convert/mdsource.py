"""Markdown sources, read as CommonMark (markdown-it-py): sections by heading, code blocks left out as notes.

Only the block structure is parsed; bodies keep their source lines as written.
"""

from __future__ import annotations

import re
import threading
from typing import TYPE_CHECKING

from docs_mcp.convert.anchors import IdRegistry, slugify
from docs_mcp.convert.cleanup import clean_markdown, code_note, short_literal
from docs_mcp.convert.parsing import clean_heading
from docs_mcp.model.section import Section
from docs_mcp.text.tidy import normalize_space
from docs_mcp.themes import PLAIN_TEXT_LANGUAGES

if TYPE_CHECKING:
    from markdown_it.token import Token

#: An explicit heading id, `# Title {#custom}` (Pandoc, MkDocs, Hugo).
_EXPLICIT_ID = re.compile(r"(?<!\s)\s*\{#([A-Za-z0-9_:.-]+)\}\s*$")
#: YAML front matter: metadata, not Markdown (read as Markdown, its closing `---` makes a heading).
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(?:.*\n)*?(?:---|\.\.\.)[ \t]*(?:\n|\Z)")
#: One parser per thread: markdown-it-py does not promise that one parser may serve threads at once.
_local = threading.local()


def _blocks(text: str) -> tuple[list[str], list[Token]]:
    """The source's lines (line ends normalized) and its block tokens; front matter stays text, unparsed."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    front = _FRONT_MATTER.match(text)
    skipped = front.group(0).count("\n") if front else 0
    parser = getattr(_local, "parser", None)
    if parser is None:
        from markdown_it import MarkdownIt  # imported on the first Markdown page, not at server start

        # Block structure only: inline markup (emphasis, links) is left as written.
        parser = _local.parser = MarkdownIt("commonmark").disable("inline")
    # Blank lines stand for the front matter, so token line numbers stay those of the source.
    tokens = parser.parse("\n" * skipped + text[front.end() :] if front else text)
    return text.split("\n"), tokens


def split_markdown(text: str) -> tuple[str, list[Section]]:
    """Sections of a Markdown page by its top-level headings (ATX or setext); returns (title, sections)."""
    lines, tokens = _blocks(text)
    registry = IdRegistry()
    # (id, title, level, heading line, first body line) of each heading; the preamble is level 0 from line 0.
    heads: list[tuple[str, str, int, int, int]] = [("", "", 0, 0, 0)]
    for k, tok in enumerate(tokens):
        if tok.type != "heading_open" or tok.level or not tok.map or not tokens[k + 1].content.strip():
            continue
        title = tokens[k + 1].content
        explicit = _EXPLICIT_ID.search(title)
        if explicit:
            title = title[: explicit.start()]
        title = clean_heading(title)
        sid = registry.claim(explicit.group(1) if explicit else slugify(title))
        heads.append((sid, title, int(tok.tag[1]), tok.map[0], tok.map[1]))
    out: list[Section] = []
    stack: list[Section] = []
    for n, (sid, title, level, _, body_start) in enumerate(heads):
        body_end = heads[n + 1][3] if n + 1 < len(heads) else len(lines)
        body = "\n".join(lines[body_start:body_end]).strip("\n")
        if level == 0:
            if body.strip():
                out.append(
                    Section(registry.claim("top"), "", 0, None, body_md=body, text=normalize_space(body))
                )
            continue
        while stack and stack[-1].level >= level:
            stack.pop()
        parent = stack[-1].id if stack else None
        sec = Section(sid, title, level, parent, body_md=body, text=normalize_space(body))
        out.append(sec)
        stack.append(sec)
    first = next((s.title for s in out if s.level == 1), "") or next((s.title for s in out if s.level), "")
    return first, out


def markdown_without_code(text: str) -> str:
    """Code blocks, fenced or indented, become a one-line note, except plain-text fences and short literals."""
    lines, tokens = _blocks(text)
    out: list[str] = []
    done = 0
    for tok in tokens:
        if tok.type not in ("fence", "code_block") or not tok.map:
            continue
        info = tok.info.split(maxsplit=1)
        lang = info[0].strip("{}.").lower() if info else ""
        if (tok.type == "fence" and lang in PLAIN_TEXT_LANGUAGES) or short_literal(tok.content):
            continue
        start, end = tok.map
        out += lines[done:start]
        out.append(_container_prefix(lines[start], tok) + code_note(lang, len(tok.content.splitlines()) or 1))
        done = end
    return clean_markdown("\n".join(out + lines[done:]))


def _container_prefix(first: str, tok: Token) -> str:
    """What stands before a code block on its first line (`- `, `> `, a list item's indent): the note keeps it."""
    if tok.type == "fence":
        return first[: max(first.find(tok.markup), 0)]
    if not tok.level:
        return ""
    lead = first[: len(first) - len(first.lstrip(" \t>"))]
    return lead[:-4] if lead.endswith("    ") else lead.rstrip(" \t")
