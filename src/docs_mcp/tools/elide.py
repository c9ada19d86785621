"""get_doc_section within a session: the runs of the unit's text shown before are one-line pointers.

Offsets (start_index, next_start_index, `chars a-b of content_length`) stay those of the unit's own text, so
a later call reads on from the same place whether or not it repeats what was shown.
"""

from __future__ import annotations

from dataclasses import dataclass

from docs_mcp.model.document import Document
from docs_mcp.model.section import SEPARATOR, Ref
from docs_mcp.model.seen import SESSION_ELIDE_MIN, PageView, shown_note
from docs_mcp.text.budget import open_fence, paginate


@dataclass(frozen=True)
class Part:
    """A section's part of the unit's text: it starts at `at` and is [start, end) of section i's own text."""

    at: int
    i: int
    start: int
    end: int


@dataclass(frozen=True)
class Piece:
    """A run of the answer: at `out` in it, standing for [start, end) of the unit's text (`text` False: a pointer)."""

    out: int
    start: int
    end: int
    text: bool


def parts(doc: Document, ref: Ref, code: bool) -> list[Part]:
    """The unit's text as doc.unit_markdown joins it, part by part."""
    span = doc.unit_span(ref, code)
    if span is not None:
        return [Part(0, ref.section, span[0], span[1])]
    out, pos = [], 0
    for k in range(*doc.span(ref.section)):
        size = len(doc.own_markdown(k, code))
        if not size:
            continue
        if out:
            pos += len(SEPARATOR)
        out.append(Part(pos, k, 0, size))
        pos += size
    return out


def holes(view: PageView, pieces: list[Part]) -> list[tuple[int, int, str]]:
    """The runs of the unit's text shown before, in its offsets, each with its pointer line. The unit's own
    text sent whole is not one: asked for by its id (as its pointer says), it is sent again."""
    out = []
    for n, p in enumerate(pieces):
        key = view.key(p.i)
        whole = view.seen.covered(key, p.start, p.end)
        if whole is not None and n == 0:
            continue
        if whole is not None:
            ident = view.doc.sections[p.i].id if p.start == 0 else ""
            label = f"#{ident}: " if ident else f"{p.end - p.start:,} chars: "
            out.append((p.at, p.at + p.end - p.start, f"[{label}{shown_note(whole)}]"))
            continue
        for a, b, call in view.seen.shown_in(key, p.start, p.end):
            if b - a >= SESSION_ELIDE_MIN:
                out.append(
                    (p.at + a - p.start, p.at + b - p.start, f"[… {b - a:,} chars {shown_note(call)} …]")
                )
    return out


def elided(text: str, start: int, gaps: list[tuple[int, int, str]]) -> tuple[str, list[Piece]]:
    """The unit's text from `start` with each gap a pointer line, and where each run of it came from."""
    chunks: list[str] = []
    pieces: list[Piece] = []
    out = cursor = start

    def add(piece: str, a: int, b: int, is_text: bool) -> None:
        nonlocal out
        if piece:
            chunks.append(piece)
            pieces.append(Piece(out, a, b, is_text))
            out += len(piece)

    for a, b, label in gaps:
        if b <= start:
            continue
        a = max(a, start)
        add(text[cursor:a], cursor, a, True)
        add(f"{label}\n" if b >= len(text) or text[b] != "\n" else label, a, b, False)
        cursor = b
    add(text[cursor:], cursor, len(text), True)
    return "".join(chunks), [Piece(p.out - start, p.start, p.end, p.text) for p in pieces]


def source_offset(pieces: list[Piece], out: int) -> int:
    """Where an offset of the answer falls in the unit's text (past a pointer: the end of what it stands for)."""
    for p in pieces:
        if p.out <= out < p.out + (p.end - p.start if p.text else 1 << 60):
            return p.start + (out - p.out) if p.text else (p.start if out == p.out else p.end)
    return pieces[-1].end if pieces else 0


def record(view: PageView, unit: list[Part], pieces: list[Piece], shown: int) -> None:
    """Remember the text runs among the first `shown` chars of the answer, per section."""
    for p in pieces:
        if not p.text or p.out >= shown:
            continue
        a, b = p.start, min(p.end, p.start + shown - p.out)
        for part in unit:
            lo, hi = max(a, part.at), min(b, part.at + part.end - part.start)
            if hi > lo:
                view.seen.record(view.key(part.i), part.start + lo - part.at, part.start + hi - part.at)


def window(view: PageView, ref: Ref, text: str, start: int, limit: int) -> tuple[str, int, int | None, int]:
    """The answer's body from `start`, within `limit`: (body, its end and next start in the unit's text, pointers)."""
    unit = parts(view.doc, ref, view.code)
    gaps = [] if view.repeat else holes(view, unit)
    body, pieces = elided(text, start, gaps)
    win = paginate(body, 0, limit)
    end = source_offset(pieces, len(win.content)) if win.next_start is not None else len(text)
    record(view, unit, pieces, len(win.content))
    shown = sum(1 for p in pieces if not p.text and p.out < len(win.content))
    content = win.content
    reopen = open_fence(text, start) if start else None
    if reopen:
        content = f"{reopen}\n" + content
    fence = open_fence(text, end)
    if fence:
        content += f"\n{fence}"
    return content, end, (end if end < len(text) else None), shown
