"""The policies of the context-to-answer benchmarks: how a scripted agent reads the docs for one question.

Served policies talk to a fresh docs-mcp server through the MCP client (`pipeline`, `in-doc`, `section`,
`agent`); the direct ones are the peers' baselines computed from the gold page's markdown outside the server
(`whole-page`, `paged-5000`). Each records what the model saw in a `Run`.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# benchmarks/: common.py, question_files.py and the other folders
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import common as cm

SECTION_CALL_CAP = 10
PAGE_SLICE = 5_000
AGENT_CALLS = 6
AGENT_PAGES = 3
#: A line of search_in_doc's map of the units it did not show: `- #id …` under a "more on this page" line.
_MAP_LINE = re.compile(r"^- #(\S+)")
_MAP_HEAD = "more on this page"
#: search_answer.SITE_TERMS: the site's own terms follow it on its line, each in double quotes.
_SITE_TERMS = "this site's own terms nearest your question"
_QUOTED = re.compile(r'"([^"]+)"')
_TOC_LINE = re.compile(r"^\s*- (.*) #(\S+) \(([\d,]+)\)\s*$")
_NEXT = re.compile(r"next_start_index=(\d+)")
_SECTION_NUMBER = re.compile(r"^\s*(\d+\.)+\d*\s*")


@dataclass
class Run:
    """One (question, policy) outcome."""

    id: str
    policy: str
    solved: bool = False
    chars: int = 0
    calls: int = 0
    note: str = ""
    form: str = "full"  # the question's query form: as written, or terse (question_files.FORMS)
    views: list[str] = field(default_factory=list, repr=False)

    def see(self, text: str, needles: list[str]) -> bool:
        """Record one call's view; whether the question is now answered (needle in all text seen so far)."""
        self.views.append(text)
        self.calls += 1
        self.chars += len(text)
        self.solved = self.solved or cm.found("".join(self.views), needles)
        return self.solved


class SharedDocs:
    """Already-built Documents, so a fresh DocsTools skips refetching while its own cache starts empty."""

    def __init__(self) -> None:
        self.docs: dict[str, Any] = {}

    def load_document(self, key: str) -> Any:
        """The Document for a page key, if some earlier run built it."""
        return self.docs.get(key)

    def keep(self, tools: Any) -> None:
        """Remember every document a DocsTools has loaded."""
        for doc in tools.cache.documents():
            self.docs.setdefault(tools.sources.resolve(doc.url).key, doc)


Call = Callable[[str, dict[str, Any]], Awaitable[str]]


async def pipeline(call: Call, q: dict[str, Any], gold: str, r: Run) -> None:
    """search_docs(query, 3), then search_in_doc on at most 2 distinct result pages, until solved."""
    hits = await call("search_docs", {"query": q["query"], "max_results": 3})
    if r.see(hits, q["needles"]):
        return
    pages = list(dict.fromkeys(cm.result_urls(hits)))  # distinct, in rank order
    if not pages:
        r.note = "search_docs returned no result urls"
    for page in pages[:2]:
        if r.see(await call("search_in_doc", {"url": page, "query": q["query"]}), q["needles"]):
            return


async def in_doc(call: Call, q: dict[str, Any], gold: str, r: Run) -> None:
    """search_in_doc(gold url, query) once."""
    r.see(await call("search_in_doc", {"url": gold, "query": q["query"]}), q["needles"])


def title_key(title: str) -> str:
    """A heading compared loosely: section numbers like '3.3.1.' stripped, casefolded, spaces collapsed."""
    return " ".join(_SECTION_NUMBER.sub("", title).split()).casefold()


async def section(call: Call, q: dict[str, Any], gold: str, r: Run) -> None:
    """get_doc_toc, then get_doc_section on the gold heading's id, following next_start_index (≤10 calls)."""
    toc = await call("get_doc_toc", {"url": gold})
    r.see(toc, q["needles"])
    want = title_key(q["section"])
    lines = [m for ln in toc.splitlines() if (m := _TOC_LINE.match(ln))]
    ids = [m.group(2) for m in lines if title_key(m.group(1)) == want]
    if ids:
        sid = ids[0]
    else:  # not in the (possibly shortened) outline: the tool also accepts the heading text
        sid, r.note = q["section"], "gold heading not in TOC; asked by heading text"
    start = 0
    for _ in range(SECTION_CALL_CAP):
        text = await call("get_doc_section", {"url": gold, "section_id": sid, "start_index": start})
        if r.see(text, q["needles"]):
            return
        m = _NEXT.search(text.split("\n\n", 1)[0])
        if not m:
            return
        start = int(m.group(1))


async def whole_markdown(tools: Any, gold: str) -> str:
    """The whole page as markdown with code, computed outside the server."""
    _, doc = await tools.document(gold)
    return doc.markdown(include_code=True)


async def whole_page(tools: Any, q: dict[str, Any], gold: str, r: Run) -> None:
    """Baseline: the whole page in one uncapped response."""
    r.see(await whole_markdown(tools, gold), q["needles"])


async def paged(tools: Any, q: dict[str, Any], gold: str, r: Run) -> None:
    """Baseline: the whole markdown in plain 5,000-char slices from the start until a needle shows."""
    text = await whole_markdown(tools, gold)
    for start in range(0, max(len(text), 1), PAGE_SLICE):
        if r.see(text[start : start + PAGE_SLICE], q["needles"]):
            return


def map_ids(answer: str) -> list[str]:
    """The unit ids search_in_doc lists as not shown (its map), in its order."""
    _, head, rest = answer.partition(_MAP_HEAD)
    return [m.group(1) for line in rest.splitlines() if (m := _MAP_LINE.match(line.strip()))] if head else []


def site_terms(answer: str) -> list[str]:
    """The site's own terms search_docs names when the query matched weakly, in its order."""
    _, head, rest = answer.partition(_SITE_TERMS)
    return _QUOTED.findall(rest.split("\n", 1)[0]) if head else []


async def agent(call: Call, q: dict[str, Any], gold: str, r: Run) -> None:
    """search_docs(query, 5), and when it names the site's own terms, search_docs(the first, 5), whose best
    page is read first; per result page: search_in_doc, then the map's first two units; ≤ 6 calls."""
    hits = await call("search_docs", {"query": q["query"], "max_results": 5})
    if r.see(hits, q["needles"]):
        return
    pages = cm.result_urls(hits)
    for term in site_terms(hits)[:1]:
        again = await call("search_docs", {"query": term, "max_results": 5})
        if r.see(again, q["needles"]):
            return
        pages = cm.result_urls(again)[:1] + pages + cm.result_urls(again)[1:]
    for page in list(dict.fromkeys(pages))[:AGENT_PAGES]:
        if r.calls >= AGENT_CALLS:
            return
        answer = await call("search_in_doc", {"url": page, "query": q["query"]})
        if r.see(answer, q["needles"]):
            return
        for unit in map_ids(answer)[:2]:
            if r.calls >= AGENT_CALLS:
                return
            text = await call("get_doc_section", {"url": page, "section_id": unit, "max_length": 3000})
            if r.see(text, q["needles"]):
                return


SERVED = {"pipeline": pipeline, "in-doc": in_doc, "section": section, "agent": agent}
DIRECT = {"whole-page": whole_page, "paged-5000": paged}
#: Policies that start with search_docs: they search the site index when one was built.
SEARCHING = {"pipeline", "agent"}
