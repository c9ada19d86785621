"""Fuzzing all five tools through the in-process MCP client (as Claude Code calls them), against the hostile
origin and a local folder. Properties of every call: an answer within the deadline, at most cap + 1,000
chars, never an "unexpected" (internal) error; after every batch the server still answers; no request
outside the roots (the canaries are checked by the suite's autouse fixture)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import model_view
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from docs_mcp.transport.server import build_server

from .conftest import DEADLINE, hostile_tools, outside_root
from .origin import Server, docs_site
from .test_path_roots import ESCAPES

CAP = 20_000
LIMIT = CAP + 1_000
BATCH = 20
EXAMPLES = 105  # × BATCH ≥ 2,000 calls
SLOW = {"/docs/trickle.html", "/docs/slow-headers.html"}  # a deadline each: covered by their own tests


@pytest.fixture(scope="module")
def world(tmp_path_factory, canary, alt_canary) -> Iterator[dict]:
    origin = Server("127.0.0.1")
    origin.routes.update(docs_site(origin.url, canary.url, alt_canary.url))
    folder: Path = tmp_path_factory.mktemp("local")
    (folder / "guide").mkdir()
    (folder / "page.html").write_text(
        "<html><body><main><h1>Local page</h1><p>Tide text.</p></main></body></html>"
    )
    (folder / "guide" / "intro.md").write_text(
        "# Intro\n\nSome *markdown* about datums.\n\n## Next\n\nMore.\n"
    )
    tools = hostile_tools(origin.url + "docs/", f"local={folder}")
    yield {"origin": origin, "server": build_server(tools), "canary": canary, "alt": alt_canary}
    origin.stop()


def strategies(world: dict) -> st.SearchStrategy:
    origin, canary, alt = world["origin"].url, world["canary"].url, world["alt"].url
    paths = sorted(p.lstrip("/") for p in world["origin"].routes if p != "*" and p not in SLOW)
    odd = st.sampled_from([*"%./\\\x00\r\n#?@:~ é\u202e", "\ud800", "%2e", "%2f", "%5c", "%25", "..", "%00"])
    piece = st.one_of(st.characters(), st.characters(categories=["Cs"]), odd)
    any_text = st.lists(piece, max_size=40).map("".join)
    url = st.one_of(
        st.sampled_from(paths).map(lambda p: origin + p),
        st.sampled_from(ESCAPES).map(lambda p: origin + p),
        st.sampled_from(
            [
                "local:page.html",
                "page.html",
                "guide/intro.md",
                "local:guide/",
                "../etc/passwd",
                "/etc/passwd",
                "file:///etc/passwd",
                canary + "docs/page.html",
                alt + "docs/page.html",
                "http://127.0.0.1:1/docs/x.html",
                origin + "docs/" + "a" * 3000,
                "a" * 300 + ".html",
            ]
        ),
        st.tuples(st.sampled_from([origin + "docs/", "", "local:"]), any_text).map("".join),
    )
    text = st.one_of(st.sampled_from(["tide", "datum offsets", "gauge readings", ""]), any_text)
    number = st.one_of(st.integers(-10, 30_000), st.integers(-(2**70), 2**70))
    flag = st.booleans()
    section = st.one_of(st.sampled_from(["details", "Details", "#details", "", "intro"]), any_text)
    source = st.one_of(st.none(), st.sampled_from(["local", "docs", ""]), any_text)
    return st.one_of(
        st.fixed_dictionaries(
            {"query": text},
            optional={"max_results": number, "include_headings": flag, "source": source},
        ).map(lambda a: ("search_docs", a)),
        st.fixed_dictionaries(
            {"url": url, "query": text},
            optional={"max_sections": number, "max_length": number, "include_code_blocks": flag},
        ).map(lambda a: ("search_in_doc", a)),
        st.fixed_dictionaries({"url": url}).map(lambda a: ("get_doc_toc", a)),
        st.fixed_dictionaries(
            {"url": url, "section_id": section},
            optional={"max_length": number, "start_index": number, "include_code_blocks": flag},
        ).map(lambda a: ("get_doc_section", a)),
        st.fixed_dictionaries(
            {"url": url},
            optional={"max_length": number, "start_index": number, "include_code_blocks": flag},
        ).map(lambda a: ("get_doc_content", a)),
    )


async def run_batch(server, batch: list[tuple[str, dict]], origin_url: str) -> int:
    async with Client(server, mode="legacy") as client:
        for tool, args in batch:
            try:
                res = await asyncio.wait_for(client.call_tool(tool, args), DEADLINE + 3)
            except TimeoutError:
                raise AssertionError(f"no answer within the deadline: {tool} {args!r:.300}") from None
            text = model_view(res)
            assert "unexpected" not in text, f"{tool} {args!r:.300}: {text[:500]}"
            assert len(text) <= LIMIT, f"{tool} {args!r:.300}: {len(text):,} chars"
        # The server answers the next call, and correctly.
        res = await client.call_tool("get_doc_toc", {"url": origin_url + "docs/page.html"})
        assert not res.is_error and model_view(res).startswith("# Tide tables"), model_view(res)[:300]
    return len(batch) + 1


def test_fuzzed_calls_keep_every_property(world):
    calls = 0

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,  # the same 2,000+ calls in every CI run; benchmarks/reliability/reliability.py varies them
        suppress_health_check=list(HealthCheck),
    )
    @given(st.lists(strategies(world), min_size=BATCH, max_size=BATCH))
    def fuzz(batch):
        nonlocal calls
        calls += asyncio.run(run_batch(world["server"], batch, world["origin"].url))

    fuzz()
    assert calls >= 2_000
    assert outside_root(world["origin"]) == []
