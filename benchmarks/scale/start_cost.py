"""Start cost: a new stdio session to its first answer, docslice on a complete index against a bare MCP server.

A subagent starts its server on every run, so the start is paid a hundred times a day. Each run launches a
process, initializes, lists the tools and makes one call: `search_docs` on a complete, fresh index of
fixtures/site for docslice; a one-tool echo server written with the same `mcp` package for the bare figure.
Prints medians, the ratio, and the machine's load; `--json` prints the same as JSON.

    python benchmarks/scale/start_cost.py [--runs 7] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SITE = REPO / "fixtures" / "site"
BARE = """
from mcp.server.mcpserver import MCPServer
server = MCPServer("bare")

@server.tool()
def echo(text: str) -> str:
    return text

server.run("stdio")
"""


async def first_answer(command: list[str], tool: str, arguments: dict) -> float:
    """Seconds from launching `command` to the answer of its first tool call, over stdio."""
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=command[0], args=command[1:], env={**os.environ})
    t0 = time.perf_counter()
    with open(os.devnull, "w") as quiet:
        async with stdio_client(params, errlog=quiet) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            await s.list_tools()
            res = await s.call_tool(tool, arguments)
            took = time.perf_counter() - t0
            assert not res.is_error, res.content
    return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    ns = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="docslice-start-") as cache:
        docslice = [sys.executable, "-m", "docs_mcp", "--source", str(SITE), "--cache-dir", cache]
        # The complete, fresh index every start then uses as it is.
        subprocess.run([*docslice[:3], "index", *docslice[3:]], check=True, capture_output=True)
        bare, ours = [], []
        for _ in range(ns.runs):  # interleaved: a change in the machine's load hits both alike
            bare.append(asyncio.run(first_answer([sys.executable, "-c", BARE], "echo", {"text": "hi"})))
            ours.append(asyncio.run(first_answer(docslice, "search_docs", {"query": "tidal datum"})))
    out = {
        "runs": ns.runs,
        "bare_median_ms": round(statistics.median(bare) * 1000),
        "docslice_median_ms": round(statistics.median(ours) * 1000),
        "ratio": round(statistics.median(ours) / statistics.median(bare), 2),
        "load": [round(x, 2) for x in os.getloadavg()],
    }
    if ns.json:
        print(json.dumps(out))
        return
    print(
        f"start → first answer over stdio, median of {ns.runs}: bare MCP server {out['bare_median_ms']:,} ms, "
        f"docslice search_docs on a complete index {out['docslice_median_ms']:,} ms "
        f"({out['ratio']:.2f}×); load {out['load']}"
    )


if __name__ == "__main__":
    main()
