"""search_in_doc's answer: the best sections of one page for a query, whole when small, else their passages.

A passage cut from inside a definition names it (`[offset 4210 in fillfactor #RELOPTION-FILLFACTOR]`).
"""

from __future__ import annotations

from textwrap import dedent

from docs_mcp import settings as C
from docs_mcp.convert.outline import fit_outline, outline_line
from docs_mcp.errors import echo
from docs_mcp.model.document import Document
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


def search_page(doc: Document, query: str, count: int, limit: int, code: bool, cap: int) -> str:
    """The page's best sections for `query` within `limit` chars (see search_in_doc)."""
    idx = page_index(doc)
    ranked = idx.rank(query)
    scored = select_sections(doc, ranked, count)
    chosen = [s.index for s in scored]
    if not chosen:
        outline = [(s.level, outline_line(s.level, s.title, s.id)) for s in doc.sections if s.level]
        body, note = fit_outline(outline, min(limit, cap) - 200, cap)
        return (
            f"# {doc.title}\n{doc.url} · no section matches {echo(query)}. Outline (pick one with "
            f"get_doc_section, or try other words):\n{body}{note}"
        )
    parts, used = [], 0
    shown: Shown = {}
    for rank, i in enumerate(chosen):
        remaining = limit - used
        if remaining < 200:
            break
        piece, size, shown[i] = _section_piece(
            doc, idx, scored[rank], query, code, limit, remaining, rank, len(chosen), count
        )
        used += size
        parts.append(f"{section_label(doc, i)}\n{piece}")
    # The map's lines count against max_length like the passages: what the passages left is its room.
    more = page_map(doc, idx, [s.index for s in ranked], query, shown, code, limit, used)
    # The query is not echoed: the model has it in the call, and every response repeats it otherwise.
    head = f"# {doc.title}\n{doc.url} · {len(parts)} best section(s) · total_content_chars={used}"
    return head + "\n\n" + "\n\n".join([*parts, more] if more else parts)


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
    # Passages inside nested definitions share their indentation: it costs chars and says nothing.
    shown = [Passage(p.offset, dedent(p.text)) for p in found]
    room = remaining - sum(len(p.text) for p in shown)
    for k, p in enumerate(shown):
        headed = with_table_header(own, p.offset, p.text)
        if len(headed) - len(p.text) <= room:
            room -= len(headed) - len(p.text)
            shown[k] = Passage(p.offset, headed)
    piece = _join(shown, _definitions(doc, i, code)) + (
        f"\n[{len(own):,}-char section: get_doc_section {doc.sections[i].id} start_index=offset reads on]"
    )
    return piece, sum(len(p.text) for p in shown), [(p.offset, p.offset + len(p.text)) for p in found]


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
