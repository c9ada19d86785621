"""`docslice measure`: what each tool returns for one page, in chars and tokens, as the model sees it."""

from __future__ import annotations

import json
import re
import sys
from dataclasses import asdict, dataclass, replace
from typing import Any

from docs_mcp.text.tidy import clip
from docs_mcp.text.tokens import CALIBRATION_ERROR, CALIBRATION_PLAIN, estimate_tokens

_NEXT = re.compile(r"next_start_index=(\d+)")
#: Characters of each answer shown under its row.
SHOWN_CHARS = 96


def gist(text: str) -> str:
    """The start of an answer, on one line: past its header (the first paragraph) when there is more."""
    head, _, body = text.partition("\n\n")
    return clip(" ".join((body or head).split()), SHOWN_CHARS)


@dataclass(frozen=True)
class Row:
    """One measured call (or a series of calls, for whole-page reads)."""

    tool: str
    arguments: str
    chars: int
    tokens: int
    calls: int = 1
    note: str = ""
    #: The start of what the tool returned (the first call's), past its header line, shortened.
    shows: str = ""


def model_view(result: Any) -> str:
    """What Claude Code hands the model: the serialized structured content when present, else the text."""
    if result.structured_content is not None:
        return json.dumps(result.structured_content, ensure_ascii=False)
    return "".join(getattr(block, "text", "") for block in result.content)


class Meter:
    """Calls tools through a real MCP client and records the size of what comes back."""

    def __init__(self, client):
        self.client = client
        self.rows: list[Row] = []

    async def view(self, tool: str, **args) -> tuple[str, bool]:
        res = await self.client.call_tool(tool, args)
        return model_view(res), bool(res.is_error)

    async def one(self, tool: str, label: str, **args) -> str:
        text, error = await self.view(tool, **args)
        note = "error: " + text.split(": ", 1)[-1][:60] if error else ""
        if not error and _NEXT.search(text.split("\n\n", 1)[0]):
            note = "cut (more via next_start_index)"
        self.rows.append(Row(tool, label, len(text), estimate_tokens(text), 1, note, gist(text)))
        return text

    async def all_pages(self, tool: str, label: str, **args) -> Row:
        """Follow next_start_index to the end, as an agent reading everything would."""
        total_chars = total_tokens = calls = 0
        start: int | None = 0
        shows = ""
        while start is not None and calls < 200:
            text, error = await self.view(tool, start_index=start, **args)
            shows = shows or gist(text)
            total_chars += len(text)
            total_tokens += estimate_tokens(text)
            calls += 1
            m = None if error else _NEXT.search(text.split("\n\n", 1)[0])
            start = int(m.group(1)) if m else None
        row = Row(tool, label, total_chars, total_tokens, calls, "whole page", shows)
        self.rows.append(row)
        return row


def _top_sections(doc) -> list[int]:
    """The page's top-level sections: its shallowest headings, or a single h1's children."""
    tops = [i for i, s in enumerate(doc.sections) if s.level == min(x.level for x in doc.sections if x.level)]
    if len(tops) == 1:  # a single h1: its children are the top-level sections
        tops = [i for i, s in enumerate(doc.sections) if s.parent == doc.sections[tops[0]].id] or tops
    return tops


async def _measure_rows(m: Meter, app, doc, url: str, query: str | None) -> Row:
    """One row per way of reading the page; returns the whole-page read (every window followed)."""
    await m.one("get_doc_toc", "", url=url)
    for i in _top_sections(doc):
        await m.one("get_doc_section", f"#{doc.sections[i].id}", url=url, section_id=doc.sections[i].id)
    if query:
        await m.one("search_in_doc", repr(query), url=url, query=query)
    await m.one("get_doc_content", "first page", url=url)
    await m.one("get_doc_content", "first page, code", url=url, include_code_blocks=True)
    whole = await m.all_pages("get_doc_content", "all pages", url=url)
    await m.all_pages("get_doc_content", "all pages, code", url=url, include_code_blocks=True)
    if query:
        await m.one("search_docs", repr(query), query=query)
        await m.one("search_docs", repr(query) + ", headings", query=query, include_headings=True)
        if app.index is None or not app.index.page_count():
            for k in (-1, -2):
                m.rows[k] = Row(**{**asdict(m.rows[k]), "note": "index empty: run `docslice index` first"})
    else:
        m.rows.append(Row("search_docs", "(needs --query)", 0, 0, 0, "skipped"))
    m.rows[0] = replace(m.rows[0], arguments=url)
    return whole


async def _answer_paths(m: Meter, doc, url: str, query: str, whole: Row) -> list[tuple[str, int, int, int]]:
    """The ways to the query's answer: search_in_doc, toc + the best section, or every window of the page."""
    from docs_mcp.search.in_page.ranking import page_index

    in_doc = next(r for r in m.rows if r.tool == "search_in_doc")
    paths = [("search_in_doc", in_doc.chars, in_doc.tokens, 1)]
    ranked = page_index(doc).rank(query)
    if ranked:
        best = doc.sections[ranked[0].index].id
        sec, _ = await m.view("get_doc_section", url=url, section_id=best)
        toc = m.rows[0]
        paths.append(
            (
                f"get_doc_toc + get_doc_section #{best}",
                toc.chars + len(sec),
                toc.tokens + estimate_tokens(sec),
                2,
            )
        )
    paths.append(("get_doc_content, every page", whole.chars, whole.tokens, whole.calls))
    return paths


async def measure_page(app, url: str, query: str | None) -> dict[str, Any]:
    """Measure every tool on one page; returns rows and the paths to the query's answer."""
    from mcp import Client

    from docs_mcp.transport.server import build_server

    _, doc = await app.tools.document(url)
    async with Client(build_server(app.tools), mode="legacy") as client:
        m = Meter(client)
        whole = await _measure_rows(m, app, doc, url, query)
        paths = await _answer_paths(m, doc, url, query, whole) if query else []
    return {
        "url": doc.url,
        "title": doc.title,
        "page_chars": len(doc.markdown()),
        "page_chars_with_code": len(doc.markdown(True)),
        "query": query,
        "rows": [asdict(r) for r in m.rows],
        "paths": [{"path": p, "chars": c, "tokens": t, "calls": n} for p, c, t, n in paths],
        "token_estimate_error": CALIBRATION_ERROR,
    }


def render(report: dict[str, Any]) -> str:
    """An aligned table a person reads at a glance, with the cheapest path marked."""
    rows = report["rows"]
    width_tool = max(len(r["tool"]) for r in rows)
    width_args = max(len(r["arguments"]) for r in rows)  # whole: two rows may differ only at the end
    lines = [f"{report['title']} — {report['url']}", ""]
    head = f"{'tool':<{width_tool}}  {'arguments':<{width_args}}  {'chars':>8}  {'~tokens':>8}  {'calls':>5}  note"
    lines += [head, "-" * len(head)]
    for r in rows:
        lines.append(
            f"{r['tool']:<{width_tool}}  {r['arguments']:<{width_args}}  {r['chars']:>8,}  {r['tokens']:>8,}  "
            f"{r['calls']:>5}  {r['note']}".rstrip()
        )
        if r.get("shows"):
            lines.append(f"{'':<{width_tool}}  ↳ {r['shows']}")
    lines.append("-" * len(head))
    # The rows are alternative ways to read one page, not parts of it: what they compare against is the page.
    page, with_code = report["page_chars"], report["page_chars_with_code"]
    lines.append(
        f"each row is one way to read the page; the page itself is {page:,} chars as markdown "
        f"({with_code:,} with code blocks)"
    )
    if report["paths"]:
        cheapest = min(report["paths"], key=lambda p: p["chars"])
        lines += ["", f"Paths to the answer of {report['query']!r}:"]
        width_path = max(len(p["path"]) for p in report["paths"])
        for p in report["paths"]:
            mark = "  ◀ cheapest" if p is cheapest else ""
            ratio = p["chars"] / page if page else 0.0
            share = f"{ratio:>6.1%} of the page" if ratio < 0.1 else f"{ratio:>6.0%} of the page"
            lines.append(
                f"  {p['path']:<{width_path}} {p['chars']:>8,} chars  {p['tokens']:>7,} tokens  "
                f"{p['calls']:>3} call(s)  {share}{mark}"
            )
    lines += [
        "",
        f"~tokens: an estimate from the text, {CALIBRATION_PLAIN}; chars are exact, counted on what the model "
        "reads. ↳ the start of each answer.",
    ]
    return "\n".join(lines)


async def run_measure(app, args, prepare=None) -> int:
    try:
        if prepare is not None and args.query:
            await prepare(app)  # search_docs rows need an index
        report = await measure_page(app, args.url, args.query)
    finally:
        await app.tools.aclose()
    sys.stdout.write(
        json.dumps(report, indent=1, ensure_ascii=False) + "\n" if args.json else render(report) + "\n"
    )
    return 0
