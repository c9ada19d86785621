"""Context budgets: what the model sees per tool and fixture, asserted, so growth fails CI.

Budgets sit ~15% above today's sizes: a change that makes a response 30% larger fails here, like a wrong
answer would. (Raised once, on purpose, when omitted code started leaving `[code: …]` notes, outlines started
listing definitions, and sections began to be ranked without the code the model is not shown; and again,
for three pages, when code blocks of 1-3 lines started being shown and option tables' rows became entries
listed in outlines: issue 20.) The run ends with a table of the measured sizes (see conftest.pytest_terminal_summary).
"""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path

import pytest
from conftest import SITE, SIZES, call, make_tools, model_view

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser
from docs_mcp.settings import HEADINGS_CAP, METADATA_ALLOWANCE
from docs_mcp.transport.server import build_server

pytestmark = pytest.mark.anyio

# page: (query for search_in_doc, {tool: budget in chars})
BUDGETS: dict[str, tuple[str, dict[str, int]]] = {
    "sphinx.html": (
        "resample to a fixed interval",
        {"toc": 780, "section": 1400, "in_doc": 710, "content": 4850},
    ),
    "docbook.html": (  # the first h2 section is the chapter, holding every sect1 (3,350)
        "configuration file cache directory",
        {"toc": 650, "section": 3500, "in_doc": 1030, "content": 3420},
    ),
    "mkdocs.html": (
        "filling gaps in a series",
        {"toc": 520, "section": 1010, "in_doc": 430, "content": 2400},
    ),
    "docusaurus.html": (
        "search station by position",
        {"toc": 500, "section": 930, "in_doc": 890, "content": 1790},
    ),
    "seed.html": ("convert between datums", {"toc": 450, "section": 710, "in_doc": 970, "content": 2090}),
    "big-reference.html": (
        "harmonic constituents least squares",
        {"toc": 11200, "section": 5950, "in_doc": 1780, "content": 5900},
    ),
    "api-1.html": ("options", {"toc": 2050, "section": 330, "in_doc": 1750, "content": 5300}),
    "japanese.html": ("設定ファイル", {"toc": 410, "section": 320, "in_doc": 310, "content": 1010}),
    "malformed.html": ("broken markup", {"toc": 300, "section": 550, "in_doc": 320, "content": 1050}),
    "notes.md": ("breaking changes", {"toc": 330, "section": 830, "in_doc": 505, "content": 1170}),
    "guide/configuration.html": (
        "environment variables",
        {"toc": 450, "section": 505, "in_doc": 780, "content": 1100},
    ),
}
SEARCH_BUDGETS = {"search_docs": 1850, "search_docs+headings": 5700}
SEARCH_QUERIES = ("tide gauge datum", "configuration file", "resampling interval", "station search")


def record(tool: str, page: str, text: str) -> int:
    SIZES[(tool, page)] = len(text)
    return len(text)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> App:
    """An index of the fixture site (local folder source), built once for this module."""
    cache: Path = tmp_path_factory.mktemp("budget-index")
    app = App(
        parser().parse_args(["serve", "--source", str(SITE), "--cache-dir", str(cache), "--no-index"]), 1
    )

    async def go():
        await app.indexer.run()
        await app.fetcher.aclose()

    asyncio.run(go())
    return app


@pytest.mark.parametrize("page", sorted(BUDGETS))
async def test_page_tools_stay_within_budget(page):
    query, budget = BUDGETS[page]
    server = build_server(make_tools(str(SITE)))
    toc = model_view(await call(server, "get_doc_toc", url=page))
    first_id = toc.split("\n")[2].rsplit(" #", 1)[1].split(" ")[0]
    lines = [x for x in toc.splitlines()[2:] if x.startswith("  - ")]
    if lines:  # the first second-level section, which is what an agent usually reads first
        first_id = lines[0].rsplit(" #", 1)[1].split(" ")[0]
    seen = {
        "toc": toc,
        "section": model_view(await call(server, "get_doc_section", url=page, section_id=first_id)),
        "in_doc": model_view(await call(server, "search_in_doc", url=page, query=query)),
        "content": model_view(await call(server, "get_doc_content", url=page)),
    }
    for tool, text in seen.items():
        size = record(tool, page, text)
        assert size <= budget[tool], f"{tool} on {page}: {size} chars > budget {budget[tool]}"


def test_search_docs_stays_within_budget(indexed):
    async def go():
        server = build_server(indexed.tools)
        for q in SEARCH_QUERIES:
            plain = model_view(await call(server, "search_docs", query=q))
            heads = model_view(await call(server, "search_docs", query=q, include_headings=True))
            record("search_docs", q, plain)
            record("search_docs+headings", q, heads)
            assert len(plain) <= SEARCH_BUDGETS["search_docs"], (q, len(plain))
            assert len(heads) <= SEARCH_BUDGETS["search_docs+headings"], (q, len(heads))

    asyncio.run(go())


# --- the classic cases, by name ----------------------------------------------------------------
async def test_list_items_a_naive_converter_duplicates_appear_once():
    server = build_server(make_tools(str(SITE)))
    out = model_view(await call(server, "get_doc_section", url="seed.html", section_id="datum-checklist"))
    items = [line for line in out.splitlines() if line.startswith("- ")]
    assert len(items) == 5 and len(set(items)) == 5
    assert out.count("Record which datum every file uses before merging anything.") == 1


async def test_unlimited_read_of_a_100k_page_is_capped():
    tools = make_tools(str(SITE))
    _, doc = await tools.document("big-reference.html")
    assert len(doc.markdown()) > 100_000
    out = model_view(
        await call(build_server(tools), "get_doc_content", url="big-reference.html", max_length=0)
    )
    record("content_unlimited", "big-reference.html", out)
    assert len(out) <= tools.cap + METADATA_ALLOWANCE
    assert "next_start_index=" in out


@pytest.mark.slow
async def test_toc_with_120_plus_headings_is_capped():
    tools = make_tools(str(SITE))
    _, doc = await tools.document("big-reference.html")
    assert len(doc.sections) >= 120
    full = model_view(await call(build_server(tools), "get_doc_toc", url="big-reference.html"))
    assert full.count("\n") >= len(doc.sections)  # every heading when it fits the cap
    small = make_tools(str(SITE), max_chars=2000)
    capped = model_view(await call(build_server(small), "get_doc_toc", url="big-reference.html"))
    assert len(capped) <= 2000 + METADATA_ALLOWANCE
    assert "headings deeper than h" in capped and "omitted" in capped


def test_include_headings_on_five_heading_heavy_pages_is_capped(indexed):
    async def go():
        server = build_server(indexed.tools)
        out = model_view(
            await call(
                server,
                "search_docs",
                query="api reference options parameters",
                max_results=20,
                include_headings=True,
            )
        )
        hits = [block for block in out.split("\n\n")[1:] if "api-" in block.split("\n")[1]]
        assert len(hits) >= 5
        for block in hits:
            listed = [line for line in block.splitlines() if line.lstrip().startswith("- ")]
            assert 0 < len(listed) <= HEADINGS_CAP
        assert len(out) <= indexed.tools.cap + METADATA_ALLOWANCE
        record("search_docs+headings", "api-1..5 (20 hits)", out)

    asyncio.run(go())


# --- the invariant: no response exceeds the cap plus metadata, whatever the arguments -------------
@pytest.mark.slow
@pytest.mark.parametrize("cap", [1500, 20_000])
def test_no_response_exceeds_cap_plus_metadata(cap, indexed):
    async def go():
        tools = make_tools(str(SITE), max_chars=cap)
        indexed_tools = indexed.tools
        server = build_server(tools)
        lengths = [0, -1, 1, 50, 5000, 10**9]
        for page in sorted(BUDGETS):
            sizes = [len(model_view(await call(server, "get_doc_toc", url=page)))]
            for n, code in itertools.product(lengths, (False, True)):
                for start in (0, 333):
                    res = await call(
                        server,
                        "get_doc_content",
                        url=page,
                        max_length=n,
                        start_index=start,
                        include_code_blocks=code,
                    )
                    sizes.append(len(model_view(res)))
                res = await call(
                    server,
                    "search_in_doc",
                    url=page,
                    query=BUDGETS[page][0],
                    max_sections=10,
                    max_length=n,
                    include_code_blocks=code,
                )
                sizes.append(len(model_view(res)))
            assert max(sizes) <= cap + METADATA_ALLOWANCE, (page, max(sizes))
        capped = type(indexed_tools)(
            indexed_tools.sources, tools.settings, searcher=indexed_tools.searcher, store=indexed_tools.store
        )
        out = await capped.search_docs("api options parameters section", 20, include_headings=True)
        assert len(out) <= cap + METADATA_ALLOWANCE

    asyncio.run(go())


# --- what the server costs before any call: instructions and tools/list ------------------------------
async def test_tool_listing_and_instructions_fit_claude_codes_limits():
    from mcp import Client

    server = build_server(make_tools(str(SITE)))
    async with Client(server, mode="legacy") as client:
        listing = await client.list_tools()
    total = len(listing.model_dump_json(exclude_none=True))
    record("tools/list", "(server)", "x" * total)
    assert total < 6_000  # the whole listing is read into context at the start of every session
    for tool in listing.tools:
        assert len((tool.description or "").encode()) < 2048, tool.name  # Claude Code truncates at 2 KB
    assert len((server.instructions or "").encode()) < 2048
