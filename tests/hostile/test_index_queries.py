"""Hostile: queries an agent should never send, answered with bounded work (issue 13, item 7).

`search_docs` with 5,000 distinct terms took 79 s before queries were cut to MAX_QUERY_CHARS and
MAX_QUERY_TERMS (the cut is in `query_terms`, shared by search_docs and search_in_doc).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser

SITE = Path(__file__).resolve().parents[2] / "fixtures" / "site"
#: 5,000 distinct words, the first ones about the page wanted.
FLOOD = "harmonic constituents least squares " + " ".join(f"zq{n}x" for n in range(5_000))


def test_a_query_of_5000_distinct_terms_is_answered_from_its_first_words(tmp_path):
    app = App(
        parser().parse_args(["serve", "--source", str(SITE), "--cache-dir", str(tmp_path), "--no-index"]), 1
    )

    async def calls() -> tuple[str, str]:
        await app.indexer.run()
        found = await app.tools.search_docs(FLOOD, 3)
        inside = await app.tools.search_in_doc("big-reference.html", FLOOD)
        return found, inside

    found, inside = asyncio.run(calls())
    assert "big-reference.html#resampling-with-tidal-harmonics" in found
    assert "least squares" in inside.lower()
    assert len(found) < 5_000 and len(inside) < 6_000  # the query is not echoed back whole
