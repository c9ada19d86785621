"""search_in_doc's answer: the best sections of one page for a query, whole when small, else their passages.

A passage cut from inside a definition names it (`[offset 4210 in fillfactor #RELOPTION-FILLFACTOR]`).
"""

from __future__ import annotations

from textwrap import dedent

from docs_mcp import settings as C
from docs_mcp.convert.outline import fit_outline, outline_line
from docs_mcp.errors import echo
from docs_mcp.model.document import Document
from docs_mcp.model.seen import SESSION_ELIDE_MIN, SESSION_EXTRA, PageView, shown_note
from docs_mcp.search.in_page.entry_passages import entry_first
from docs_mcp.search.in_page.page_map import Shown, page_map
from docs_mcp.search.in_page.passages import Passage, passages
from docs_mcp.search.in_page.ranking import PageIndex, ScoredSection, page_index, select_sections
from docs_mcp.text.budget import truncate


def section_label(doc: Document, i: int) -> str:
    """`## Module Contents > Functions #functions`: where the section is, without the page title, and its id."""
    return f"## {' > '.join(doc.short_path(i)) or doc.title} #{doc.sections[i].id}"


def with_table_header(text: str, start: int, passage: str) -> str:
    """A passage that starts inside a table carries the table's header row, so its columns have names."""
    if not passage.lstrip().startswith("|"):
        return passage
    line_start = text.rfind("\n", 0, start) + 1
    first = line_start
    while first > 0:
        prev = text.rfind("\n", 0, first - 1) + 1
        if not text[prev : first - 1].lstrip().startswith("|"):
            break
        first = prev
    if first == line_start:
        return passage  # the passage starts on the header row already
    header = text[first:].split("\n", 2)[:2]
    if len(header) < 2 or not set(header[1].replace("|", "").strip()) <= set("-: "):
        return passage
    return "\n".join(header) + "\n" + passage


def search_page(
    doc: Document, query: str, count: int, limit: int, code: bool, cap: int, view: PageView | None = None
) -> str:
    """The page's best sections for `query` within `limit` chars (see search_in_doc); with a session's
    `view`, a section or its passages shown before is a pointer line, and the next best takes its room."""
    idx = page_index(doc)
    ranked = idx.rank(query)
    scored, pointers = _choose(doc, ranked, count, view)
    chosen = [s.index for s in scored]
    if not chosen and not pointers:
        outline = [(s.level, outline_line(s.level, s.title, s.id)) for s in doc.sections if s.level]
        body, note = fit_outline(outline, min(limit, cap) - 200, cap)
        return (
            f"# {doc.title}\n{doc.url} · no section matches {echo(query)}. Outline (pick one with "
            f"get_doc_section, or try other words):\n{body}{note}"
        )
    parts, used = [], 0
    shown: Shown = {}
    repeats, skipped = pointers, 0
    for s in scored:
        remaining = limit - used
        if remaining < 200 or len(parts) >= count:
            break
        left = min(count, len(scored) - skipped)  # the sections still to show share the room
        piece, size, spans = _section_piece(
            doc, idx, s, query, code, limit, remaining, len(parts), left, count, view
        )
        if view is not None and (call := view.covered(s.index, spans)) is not None:
            repeats.append((s.index, call))  # its passages were all shown: the next best section instead
            skipped += 1
            continue
        shown[s.index] = spans
        used += size
        parts.append(f"{section_label(doc, s.index)}\n{piece}")
    found = len(parts)
    if view is not None:  # what this call sends is remembered; the map leaves out what the session was sent
        parts = [*_pointers(doc, repeats), *parts]
        shown = _remember(view, shown)
    # The map's lines count against max_length like the passages: what the passages left is its room.
    more = page_map(doc, idx, [s.index for s in ranked], query, shown, code, limit, used)
    # The query is not echoed: the model has it in the call, and every response repeats it otherwise.
    head = f"# {doc.title}\n{doc.url} · {found} best section(s) · total_content_chars={used}"
    return head + "\n\n" + "\n\n".join([*parts, more] if more else parts)


def _choose(
    doc: Document, ranked: list[ScoredSection], count: int, view: PageView | None
) -> tuple[list[ScoredSection], list[tuple[int, int]]]:
    """The sections to show (with a session: more, for those whose passages it was sent), and the best ones it
    was sent whole, with the call that sent each."""
    if view is None:
        return select_sections(doc, ranked, count), []
    fresh = [s for s in ranked if view.whole(s.index) is None]
    before = [(s.index, view.whole(s.index)) for s in select_sections(doc, ranked, count)]
    return select_sections(doc, fresh, count + SESSION_EXTRA), [(i, c) for i, c in before if c is not None]


def _remember(view: PageView, shown: Shown) -> Shown:
    """Record what this answer shows; what the session was shown on this page, for the map to leave out."""
    for i, spans in shown.items():
        view.record(i, spans)
    return {**view.shown(), **shown}


def _pointers(doc: Document, repeats: list[tuple[int, int]]) -> list[str]:
    """One line per best section shown before in the session, in one block (repeat=true shows them again)."""
    lines = [f"#{doc.sections[i].id}: {shown_note(call)}" for i, call in repeats]
    return (
        ["\n".join([*lines, "(repeat=true, or get_doc_section with the id, shows them again)"])]
        if lines
        else []
    )


def _section_piece(
    doc: Document,
    idx: PageIndex,
    scored: ScoredSection,
    query: str,
    code: bool,
    limit: int,
    remaining: int,
    rank: int,
    chosen: int,
    count: int,
    view: PageView | None = None,
) -> tuple[str, int, list[tuple[int, int]] | None]:
    """One section's text: whole when it fits its share, else its best passages (the entry that ranked it
    first); its content size; and the spans of its own markdown shown (None: all of it)."""
    i = scored.index
    own = doc.own_markdown(i, code)
    # The best section may take half the budget whole; later ones share what is left.
    whole_limit = limit // 2 if rank == 0 else min(C.SMALL_SECTION_CHARS, remaining // (chosen - rank))
    if len(own) <= min(whole_limit, remaining):
        # Whole: the label line already names the section, so its own heading line is dropped.
        piece = own.partition("\n")[2].lstrip("\n") if doc.sections[i].level else own
        return piece, len(piece), None
    # Fewer sections qualified than asked for: the best one gets their budget, the evidence is there.
    spare = min(C.SPARE_SLOT_PASSAGES, count - chosen)
    n = C.PASSAGES_PER_SECTION + spare if rank == 0 else 1
    size = min(C.PASSAGE_CHARS, remaining // n)
    # Joining near passages may add the lines between them, but not the budget of later sections.
    budget = min(remaining, n * size + (n - 1) * C.PASSAGE_GAP_BRIDGE)
    # Finishing a sentence, then the best window's run-on, may take what `remaining` has beyond that, never
    # more: with a small max_length there is nothing beyond it, and passages stop where their window does.
    reach = min(C.SENTENCE_REACH, (remaining - budget) // n)
    run_on = max(0, min(C.PASSAGE_RUN_ON, remaining - budget - n * reach))
    span = doc.entry_spans(i, code)[scored.entry] if scored.entry >= 0 else None
    found = (
        entry_first(idx, own, query, span, n, size, budget, reach, run_on)
        if span
        else passages(idx, own, query, n, size, budget, reach, run_on)
    ) or [Passage(0, truncate(own, size)[0])]
    found, before = _fresh(view, i, found)
    # Passages inside nested definitions share their indentation: it costs chars and says nothing.
    shown = [Passage(p.offset, dedent(p.text)) for p in found]
    shown = _headed(own, shown, remaining - sum(len(p.text) for p in shown))
    piece = (
        _join(shown, _definitions(doc, i, code))
        + before
        + (f"\n[{len(own):,}-char section: get_doc_section {doc.sections[i].id} start_index=offset reads on]")
    )
    return piece, sum(len(p.text) for p in shown), [(p.offset, p.offset + len(p.text)) for p in found]


def _headed(own: str, shown: list[Passage], room: int) -> list[Passage]:
    """The passages, each starting inside a table with the table's header while `room` lasts."""
    out = []
    for p in shown:
        headed = with_table_header(own, p.offset, p.text)
        if len(headed) - len(p.text) <= room:
            room -= len(headed) - len(p.text)
            p = Passage(p.offset, headed)
        out.append(p)
    return out


def _fresh(view: PageView | None, i: int, found: list[Passage]) -> tuple[list[Passage], str]:
    """The passages less what the session was sent, and a line for each passage it was sent whole (all sent:
    all kept, for the caller to make the section a pointer)."""
    if view is None:
        return found, ""
    kept, lines = [], []
    for p in found:
        sent = [] if view.repeat else view.seen.shown_in(view.key(i), p.offset, p.offset + len(p.text))
        call = view.covered(i, [(p.offset, p.offset + len(p.text))])
        rest = p if not sent else None if call else _trimmed(p, sent)
        if rest is None:
            lines.append(f"\n[offset {p.offset}: {shown_note(call or min(c for _, _, c in sent))}]")
        else:
            kept.append(rest)
    if not kept:
        return found, ""
    return kept, "".join(lines)


def _trimmed(p: Passage, sent: list[list[int]]) -> Passage | None:
    """The passage without the lines sent before at its head or tail (None: too little is left)."""
    start, text = p.offset, p.text
    for a, b, _ in sorted(sent):
        end = start + len(text)
        if a <= start < b:  # its head was sent: from the line after
            cut = text.find("\n", b - start)
            start, text = (start + cut + 1, text[cut + 1 :]) if cut >= 0 else (end, "")
        elif a < end <= b or start < a < end:  # its tail (or a run inside it) was sent: up to the line before
            cut = text.rfind("\n", 0, a - start)
            text = text[:cut] if cut > 0 else ""
    return Passage(start, text) if len(text.strip()) >= SESSION_ELIDE_MIN else None


def _definitions(doc: Document, i: int, code: bool) -> list[tuple[int, int, str]]:
    """The definitions inside a section: (start, end, `name #id`) in its own markdown."""
    spans = doc.entry_spans(i, code)
    entries = doc.sections[i].entries
    return [
        (sp[0], sp[1], f"{e.name} #{e.id}") for e, sp in zip(entries, spans, strict=True) if sp is not None
    ]


def _join(found: list[Passage], definitions: list[tuple[int, int, str]]) -> str:
    """Passages with their offsets; one cut from inside a definition names it (`in re.sub #re.sub`)."""
    out = []
    for p in found:
        inside = [(a, name) for a, b, name in definitions if a < p.offset < b]
        where = f" in {max(inside)[1]}" if inside else ""  # the innermost: it starts last
        out.append(f"[offset {p.offset}{where}]\n{p.text}")
    return "\n…\n".join(out)
