"""Page outlines: every heading with its id and size, and the definitions each section holds, within a cap."""

from __future__ import annotations

from docs_mcp.model.document import Document
from docs_mcp.model.section import Section, joined_size
from docs_mcp.settings import TOC_DEFINITIONS_CHARS, TOC_ENTRY_NAME_CHARS
from docs_mcp.text.budget import truncate
from docs_mcp.text.tidy import clip

Line = tuple[int, str]  # (heading level, text)


def outline_line(level: int, title: str, section_id: str) -> str:
    """One heading of an outline: indented by level, then the title and the id to pass to get_doc_section."""
    return f"{'  ' * max(level - 1, 0)}- {title} #{section_id}"


def entry_label(name: str, entry_id: str) -> str:
    """`#re.sub` when the id says the name, else `TEMPORARY or TEMP #SQL-CREATETABLE-TEMPORARY`."""
    if entry_id.endswith(name) or name.endswith("…"):
        return f"#{entry_id}"
    return f"{clip(name, TOC_ENTRY_NAME_CHARS)} #{entry_id}"


def definitions_line(section: Section) -> str:
    """The definitions a section holds, for the end of its heading's line; a shared prefix is written once.

    ` · defines #re.{compile, search, …}` addresses `#re.compile`, `#re.search`, … (ids, like headings').
    """
    ids = [e.id for e in section.entries]
    prefix = _common_prefix(ids)
    if prefix and all(e.id.endswith(e.name) or e.name.endswith("…") for e in section.entries):
        names = f"#{prefix}{{{', '.join(i[len(prefix) :] for i in ids)}}}"
    else:
        names = " · ".join(entry_label(e.name, e.id) for e in section.entries)
    return f" · defines {names}"


def _common_prefix(ids: list[str]) -> str:
    """The longest prefix all ids share, ending at a `.` or `-` (a module, class or chapter name)."""
    if len(ids) < 2:
        return ""
    first, last = min(ids), max(ids)
    n = 0
    while n < min(len(first), len(last)) and first[n] == last[n]:
        n += 1
    cut = max(first.rfind(ch, 0, n) for ch in ".-") + 1
    return first[:cut] if cut and all(len(i) > cut for i in ids) else ""


def markdown_size(doc: Document, include_code: bool = False) -> int:
    """len(doc.markdown()) without joining a second copy of the page."""
    return joined_size(len(doc.own_markdown(k, include_code)) for k in range(len(doc.sections)))


def page_outline(doc: Document, cap: int) -> str:
    """get_doc_toc: title, size, each heading with its id and size, and its definitions, within `cap`."""
    sizes = doc.section_sizes()
    total = markdown_size(doc)
    entries = sum(len(s.entries) for s in doc.sections)
    head = (
        f"# {doc.title}\n{doc.url} · {total:,} chars · {len(doc.sections)} sections"
        + (f" · {entries:,} definitions" if entries else "")
        + " · line: indent=level, title #id (chars incl. subsections, code excluded)\n"
    )
    budget = cap - len(head)
    headings: list[Line] = [
        (
            s.level,
            outline_line(s.level, s.title or ("(intro)" if i == 0 else "(untitled)"), s.id)
            + f" ({sizes[i]:,})",
        )
        for i, s in enumerate(doc.sections)
    ]
    defs = {i: definitions_line(s) for i, s in enumerate(doc.sections) if s.entries}
    # Definitions are folded, longest lists first, into a count until they fit their share and the outline
    # fits the cap: the headings are the map.
    folded = 0
    heads = sum(len(t) + 1 for _, t in headings)
    size = sum(len(t) for t in defs.values())
    for i in sorted(defs, key=lambda k: -len(defs[k])):
        if size <= min(TOC_DEFINITIONS_CHARS, budget - heads):
            break
        n = len(doc.sections[i].entries)
        count = f" · {n:,} definition{'s' if n != 1 else ''}"
        size += len(count) - len(defs[i])
        defs[i] = count
        folded += n
    lines: list[Line] = [(level, text + defs.get(i, "")) for i, (level, text) in enumerate(headings)]
    body, note = fit_outline(lines, budget, cap)
    if folded and not note:
        note = f"\n[{folded:,} definitions shown as counts; get_doc_section on their section shows them]"
    return head + body + note


def fit_outline(lines: list[Line], budget: int, cap: int) -> tuple[str, str]:
    """All lines if they fit; else the shallowest levels that fit whole, filled up with deeper headings in document
    order, saying how many were left out; else the first headings of the shallowest level (a page of 20,000
    <h2>s still shows its first ones, not none)."""
    body = "\n".join(text for _, text in lines)
    if len(body) <= budget:
        return body, ""
    top = max(1, min((level for level, _ in lines if level), default=1))
    deepest = max(level for level, _ in lines)
    for max_level in range(deepest - 1, top - 1, -1):
        if sum(len(text) + 1 for level, text in lines if level <= max_level) - 1 <= budget:
            return _filled(lines, max_level, budget, cap)
    kept, size = [], 0
    for level, text in lines:
        if level <= top:
            size += len(text) + 1
            if size > budget:
                break
            kept.append(text)
    body, _ = truncate("\n".join(kept), budget)
    shown = body.count("\n") + 1 if body else 0
    return body, (
        f"\n[outline cut: the first {shown:,} of {len(lines):,} headings fit {cap:,} chars; "
        "get_doc_section on one lists what is under it, search_in_doc finds the others]"
    )


def _filled(lines: list[Line], max_level: int, budget: int, cap: int) -> tuple[str, str]:
    """Every line to `max_level`, then the deeper ones in document order until the next would not fit."""
    deeper = sum(1 for level, _ in lines if level > max_level)
    # The note is written with the widest numbers it can hold, so the outline and its note stay within the cap.
    room = budget - len(_deeper_note(deeper, deeper, deeper, max_level, cap))
    room -= sum(len(text) + 1 for level, text in lines if level <= max_level)
    kept, shown, full = [], 0, False
    for level, text in lines:
        if level > max_level:
            # A prefix, not the short ones from all over: what is missing is everything after the last shown.
            full = full or len(text) + 1 > room
            if full:
                continue
            room -= len(text) + 1
            shown += 1
        kept.append(text)
    return "\n".join(kept), _deeper_note(deeper - shown, shown, deeper, max_level, cap)


def _deeper_note(omitted: int, shown: int, deeper: int, max_level: int, cap: int) -> str:
    """What a filled outline left out, and the tool that reaches it (get_doc_toc takes no section)."""
    first = f" (the first {shown:,} are shown)" if shown else ""
    return (
        f"\n[{omitted:,} of {deeper:,} headings deeper than h{max_level} omitted to fit {cap:,} chars{first}; "
        "search_in_doc finds the others by their words]"
    )
