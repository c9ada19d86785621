"""A window of a page's or a unit's text as get_doc_content and get_doc_section answer it: the header saying
where it is and what is left, the body with its code fences closed, the footer saying where to read on."""

from __future__ import annotations

import re

from docs_mcp.errors import InvalidArgument
from docs_mcp.model.document import Document
from docs_mcp.model.section import Ref
from docs_mcp.text.budget import open_fence, paginate, window_length
from docs_mcp.tools import specs

#: A code block left out of the markdown (see markdown.code_note), and what the header says about it.
CODE_NOTE = re.compile(r"^[ \t>]*\[code: [^\]\n]*\d+ lines?\]$", re.M)
CODE_OMITTED = "code omitted: include_code_blocks=true shows it"


def unit_place(doc: Document, ref: Ref) -> str:
    """Where a unit is, as get_doc_section's header names it: `URL#id (Title > Heading)`."""
    path = " > ".join(doc.unit_path(ref)) or doc.title
    return f"{doc.url}#{doc.unit_id(ref)} ({path})"


def check_start(text: str, start_index: int, cap: int, total_name: str) -> None:
    """Refuse a start_index past the end of `text` (an empty text reads from 0)."""
    if text and start_index >= len(text):
        refusal = specs.START.refusal(start_index, cap, top=len(text) - 1)
        raise InvalidArgument(f"{refusal}: past the end ({total_name}={len(text)}), start again from 0")


def framed(
    title: str,
    where: str,
    body: str,
    span: tuple[int, int, int | None, int],
    tool: str,
    total_name: str,
    notes: list[str],
    code: bool,
) -> str:
    """The answer: header (`chars START-END of TOTAL_NAME=N`, next_start_index, notes), body, footer."""
    start, end, nxt, total = span
    state = f"next_start_index={nxt}" if nxt is not None else "end of content"
    head = f"# {title}\n{where} · chars {start}-{end} of {total_name}={total} · {state}"
    lines = list(notes)
    if not code and CODE_NOTE.search(body):
        lines.append(CODE_OMITTED)
    head += "".join(f"\n({n})" for n in lines)
    tail = (
        f"\n\n[cut at {end:,} of {total:,} chars: call {tool} with start_index={nxt}]"
        if nxt is not None
        else ""
    )
    return f"{head}\n\n{body}{tail}"


def window(
    doc: Document,
    text: str,
    where: str,
    limits: tuple[int, int, int],
    tool: str,
    total_name: str,
    notes: list[str],
    code: bool,
) -> str:
    """The window of `text` from start_index within max_length (`limits`: max_length, start_index, cap)."""
    max_length, start_index, cap = limits
    check_start(text, start_index, cap, total_name)
    win = paginate(text, start_index, window_length(max_length, cap))
    body = win.content
    reopen = open_fence(text, win.start) if win.start else None
    if reopen:
        body = f"{reopen}\n" + body  # reopen a code block the previous page split, with its own marker
    fence = open_fence(text, win.start + len(win.content))
    if fence:
        body += f"\n{fence}"  # a `~~~` block is closed by `~~~`, not by a backtick fence
    end = win.start + len(win.content)
    return framed(
        doc.title, where, body, (win.start, end, win.next_start, win.total), tool, total_name, notes, code
    )
