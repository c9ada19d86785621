"""search_docs latency while the index is being rewritten, as when a server's start-up refresh finds changes.

Usage: python benchmarks/reliability/search_during_refresh.py [--questions PATH] [--docs DIR] [--rounds N]
Serves the docs on 127.0.0.1, builds an index with `docs-mcp index`, then in one process (the server's
wiring: App, the MCP server, the in-process client) measures search_docs with the index idle, then again
while a refresh re-fetches and rewrites every page (their validators are cleared first, so every page comes
back as changed and is stored again), searching back to back. Prints p50/p95/max for both, and how long the
refresh takes alone and beside the searches.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import logging
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

# benchmarks/: common.py, question_files.py and the other folders
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from common import docs_server, load_questions, p95, questions_docs
from quality.search_quality import run_cli


def stale(cache: Path) -> None:
    """Every page changed on the site: its validators no longer match, so a refresh stores it again."""
    with sqlite3.connect(cache / "index.sqlite") as db:
        db.execute("UPDATE pages SET fetched_at=0, etag=NULL, last_modified=NULL")


async def measure(root: str, cache: Path, queries: list[str], rounds: int) -> dict:
    from mcp import Client

    from docs_mcp.cli.app import App
    from docs_mcp.cli.arguments import parser
    from docs_mcp.transport.server import build_server

    app = App(parser().parse_args(["serve", "--source", root, "--cache-dir", str(cache), "--no-index"]))
    warm = getattr(app.index, "warm", None) or app.search.warm  # the server warms up after the handshake
    warm()
    out: dict = {}
    async with Client(build_server(app.tools), mode="legacy") as client:

        async def timed(query: str) -> float:
            t0 = time.perf_counter()
            await client.call_tool("search_docs", {"query": query})
            return (time.perf_counter() - t0) * 1000

        idle = [await timed(q) for _ in range(rounds) for q in queries]
        # As the server's start-up refresh runs (`background` did not exist before searches were protected).
        run = inspect.signature(app.indexer.run).parameters
        background = {"background": True} if "background" in run else {}
        stale(cache)
        t0 = time.perf_counter()
        await app.indexer.run(**background)
        out["alone_s"] = time.perf_counter() - t0
        stale(cache)
        t0 = time.perf_counter()
        refresh = asyncio.create_task(app.indexer.run(**background))
        busy: list[float] = []
        k = 0
        while not refresh.done():
            busy.append(await timed(queries[k % len(queries)]))
            k += 1
        [report] = await refresh
        out["refresh_s"] = time.perf_counter() - t0
        out["rewritten"] = report.fetched
    await app.tools.aclose()
    for name, times in (("idle", idle), ("refresh", busy)):
        out[name] = {
            "n": len(times),
            "p50": statistics.median(times),
            "p95": p95(times),
            "max": max(times),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--questions", default=None)
    ap.add_argument("--docs", default=None, help="docs folder (default: the question file's, else Python's)")
    ap.add_argument("--rounds", type=int, default=2, help="passes over the questions with the index idle")
    ns = ap.parse_args()
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request otherwise
    queries = [q["query"] for q in load_questions(ns.questions)]
    docs = Path(ns.docs) if ns.docs else questions_docs(ns.questions)
    with tempfile.TemporaryDirectory(prefix="docs-mcp-refresh-") as tmp, docs_server(docs) as root:
        cache = Path(tmp)
        build = run_cli(["index", "--source", root], cache)
        out = asyncio.run(measure(root, cache, queries, ns.rounds))
    print(
        f"index built in {build:.1f} s; a refresh rewriting all {out['rewritten']} pages took "
        f"{out['alone_s']:.1f} s alone, {out['refresh_s']:.1f} s beside back-to-back searches"
    )
    print("| search_docs (MCP client, 5 results) | searches | p50 | p95 | max |")
    print("|---|--:|--:|--:|--:|")
    for name, label in (("idle", "index idle"), ("refresh", "during the refresh")):
        r = out[name]
        print(f"| {label} | {r['n']} | {r['p50']:.1f} ms | {r['p95']:.1f} ms | {r['max']:.1f} ms |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
