"""Speed figures for docs-mcp: start to tools/list, first read of a big page, cache-hit round trips."""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import importlib.util
import logging
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

# benchmarks/: common.py, question_files.py and the other folders
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from common import (
    REPO_ROOT,
    SRC_DIR,
    docs_server,
    make_tools,
    md_table,
    median,
    model_view,
    p95,
    replace_section,
)

PAGES = ("library/os.html", "library/stdtypes.html")
QUERY = {
    "library/os.html": "makedirs exist_ok FileExistsError",
    "library/stdtypes.html": "int to str conversion length limit",
}
TARGET_FIRST_MS, TARGET_HIT_MS, TARGET_START_S = 400.0, 10.0, 1.0

_INPROC_COLD = """\
import asyncio, sys, time
t0 = time.perf_counter()
from mcp import Client
from docs_mcp.settings import Settings
from docs_mcp.transport.server import build_server
from docs_mcp.fetch.sources import SourceSet
from docs_mcp.tools.docs import DocsTools
async def main():
    server = build_server(DocsTools(SourceSet.from_specs([sys.argv[1]]), Settings()))
    async with Client(server, mode="legacy") as c:
        await c.list_tools()
        print(time.perf_counter() - t0, flush=True)
asyncio.run(main())
"""


def ms(seconds: float) -> str:
    """Seconds as a millisecond string."""
    return f"{seconds * 1000:,.1f}"


def child_env() -> dict[str, str]:
    """Environment for a child server: our src on PYTHONPATH, a throwaway cache dir."""
    path = os.pathsep.join(filter(None, [str(SRC_DIR), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path}
    env["DOCS_MCP_CACHE_DIR"] = tempfile.mkdtemp(prefix="docs-mcp-bench-")
    return env


async def stdio_start(root: str) -> float:
    """Seconds from spawning `python -m docs_mcp --source ROOT` to tools/list answered over stdio."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "docs_mcp", "--source", root], env=child_env()
    )
    t0 = time.perf_counter()
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (rd, wr), ClientSession(rd, wr) as session:
            await asyncio.wait_for(session.initialize(), 20)
            tools = await asyncio.wait_for(session.list_tools(), 20)
            elapsed = time.perf_counter() - t0
    if len(tools.tools) != 5:
        raise RuntimeError(f"expected 5 tools, got {[t.name for t in tools.tools]}")
    return elapsed


async def inproc_start(root: str) -> float:
    """Seconds to build DocsTools + server and answer tools/list in-process (imports already warm)."""
    from mcp import Client

    from docs_mcp.transport.server import build_server

    t0 = time.perf_counter()
    async with Client(build_server(make_tools(root)), mode="legacy") as c:
        await c.list_tools()
        return time.perf_counter() - t0


def cold_start(root: str) -> tuple[float, float]:
    """(wall s for a fresh interpreter to import, build and list tools; the part after interpreter start)."""
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", _INPROC_COLD, root],
        env=child_env(),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return time.perf_counter() - t0, float(out.stdout.strip().splitlines()[-1])


async def measure_start(root: str, runs: int) -> tuple[list[list[str]], str]:
    """Rows for figure (a) and a note; falls back to in-process when `python -m docs_mcp` cannot run."""
    rows: list[list[str]] = []
    reason = ""
    if importlib.util.find_spec("docs_mcp.cli.main") is None:
        reason = "docs_mcp.cli.main is missing, so `python -m docs_mcp` cannot start"
    else:
        try:
            times = [await stdio_start(root) for _ in range(runs)]
            rows.append(["stdio: python -m docs_mcp → tools/list", ms(median(times)), ms(max(times)), "real"])
        except Exception as exc:  # a broken entry point is a finding, not a crash
            reason = f"`python -m docs_mcp` failed: {exc.__class__.__name__}: {exc}"
    note = ""
    if reason:
        note = f"NOTE (a): {reason}; FALLBACK: measuring in-process build_server + Client.list_tools instead."
        cold = [cold_start(root) for _ in range(runs)]
        warm = [await inproc_start(root) for _ in range(runs)]
        wall, inner = [c[0] for c in cold], [c[1] for c in cold]
        rows += [
            ["fallback: fresh python -c (interp+imports+build+list)", ms(median(wall)), ms(max(wall))],
            ["fallback: same, after interpreter start", ms(median(inner)), ms(max(inner))],
            ["fallback: in-process build+list (warm imports)", ms(median(warm)), ms(max(warm))],
        ]
        rows = [[*r, "fallback"] for r in rows]
    return rows, note


async def first_read(root: str, page: str, tool: str, runs: int) -> list[float]:
    """Seconds of the first `tool` call on `page`, each run on a fresh DocsTools and server."""
    from mcp import Client

    from docs_mcp.transport.server import build_server

    out = []
    for _ in range(runs):
        async with Client(build_server(make_tools(root)), mode="legacy") as c:
            t0 = time.perf_counter()
            r = await c.call_tool(tool, {"url": root + page})
            out.append(time.perf_counter() - t0)
            if r.is_error:
                raise RuntimeError(f"{tool} {page}: {model_view(r)}")
    return out


async def cache_hits(root: str, page: str, calls: int) -> list[list[Any]]:
    """Rows: per tool, median and p95 ms of `calls` cache-hit round trips after one warm-up."""
    from mcp import Client

    from docs_mcp.transport.server import build_server

    tools = make_tools(root)
    url = root + page
    _, doc = await tools.document(url)
    big = max(
        (i for i, s in enumerate(doc.sections) if s.level >= 2),
        key=lambda i: len(doc.section_markdown(i)),
        default=0,
    )
    sid = doc.sections[big].id
    args = {
        "search_docs": {"query": QUERY[page]},
        "search_in_doc": {"url": url, "query": QUERY[page]},
        "get_doc_toc": {"url": url},
        "get_doc_section": {"url": url, "section_id": sid},
        "get_doc_content": {"url": url},
    }
    rows = []
    async with Client(build_server(tools), mode="legacy") as c:
        for name, a in args.items():
            seen = model_view(await c.call_tool(name, a))  # warm-up (memoised markdown, page index)
            times = []
            for _ in range(calls):
                t0 = time.perf_counter()
                await c.call_tool(name, a)
                times.append(time.perf_counter() - t0)
            note = f"#{sid}" if name == "get_doc_section" else ""
            rows.append(
                [
                    page,
                    name + (f" {note}" if note else ""),
                    ms(median(times)),
                    ms(p95(times)),
                    f"{len(seen):,}",
                ]
            )
    return rows


def naive(root: str, page: str, runs: int) -> tuple[float, float, int, int]:
    """(fetch s, BeautifulSoup(lxml)+markdownify s, raw bytes, markdown chars) for the whole page, medians."""
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    fetches, converts, size, md = [], [], 0, ""
    for _ in range(runs):
        t0 = time.perf_counter()
        with urllib.request.urlopen(root + page, timeout=20) as resp:
            raw = resp.read()
        t1 = time.perf_counter()
        md = MarkdownConverter().convert_soup(BeautifulSoup(raw, "lxml"))
        converts.append(time.perf_counter() - t1)
        fetches.append(t1 - t0)
        size = len(raw)
    return median(fetches), median(converts), size, len(md)


async def run(args: argparse.Namespace) -> None:
    """Measure and print the three figures, the naive reference and the verdict."""
    lines: list[str] = []

    def emit(text: str) -> None:
        """Print a line and keep it for --out."""
        print(text, flush=True)
        lines.append(text)

    with docs_server() as root:
        print(f"docs root {root}  ·  python {sys.version.split()[0]}  ·  {os.cpu_count()} cores\n")
        start_rows, note = await measure_start(root, args.runs)
        if note:
            emit(note + "\n")
        emit(f"(a) server start → tools/list answered (median / max of {args.runs} runs)\n")
        emit(md_table(["what", "median ms", "max ms", "kind"], start_rows) + "\n")

        first_rows, first_worst = [], 0.0
        for page in PAGES:
            size = os.path.getsize(f"/usr/share/doc/python3.11/html/{page}")
            for tool in ("get_doc_toc", "get_doc_content"):
                t = await first_read(root, page, tool, args.runs)
                first_worst = max(first_worst, median(t))
                kb = f"{size / 1024:,.0f} KB"
                first_rows.append([page, kb, tool, ms(median(t)), ms(min(t)), ms(max(t))])
        emit(f"(b) first read over loopback HTTP, fresh server per run ({args.runs} runs)\n")
        emit(md_table(["page", "html", "first call", "median ms", "min ms", "max ms"], first_rows) + "\n")

        hit_rows = []
        for page in PAGES:
            hit_rows += await cache_hits(root, page, args.calls)
        hit_worst = max(float(r[2].replace(",", "")) for r in hit_rows)
        hit_p95 = max(float(r[3].replace(",", "")) for r in hit_rows)
        emit(f"(c) cache-hit round trip via in-process client ({args.calls} calls after 1 warm-up)\n")
        emit(md_table(["page", "tool", "median ms", "p95 ms", "chars seen"], hit_rows) + "\n")

        naive_rows = []
        for page in PAGES:
            f, conv, size, md = naive(root, page, args.runs)
            naive_rows.append([page, f"{size / 1024:,.0f} KB", ms(f), ms(conv), f"{md:,}"])
        emit("reference: naive BeautifulSoup(raw, 'lxml') + markdownify of the whole page (median)\n")
        emit(
            md_table(["page", "html", "fetch ms", "parse+markdownify ms", "markdown chars"], naive_rows)
            + "\n"
        )

    real = [r for r in start_rows if r[3] == "real"]
    start_s = float((real or start_rows)[0][1].replace(",", "")) / 1000
    label = "stdio" if real else "FALLBACK cold in-process"
    ok = (first_worst * 1000 <= TARGET_FIRST_MS, hit_worst <= TARGET_HIT_MS, start_s <= TARGET_START_S)
    marks = ["met" if x else "NOT met" for x in ok]
    emit(
        f"verdict: first read worst median {first_worst * 1000:,.0f} ms (≤{TARGET_FIRST_MS:.0f}: "
        f"{marks[0]}) · cache hit worst median {hit_worst:.1f} ms, worst p95 {hit_p95:.1f} ms "
        f"(≤{TARGET_HIT_MS:.0f}: {marks[1]}) · start→tools/list {start_s * 1000:,.0f} ms [{label}] "
        f"(≤{TARGET_START_S:.0f} s: {marks[2]})"
    )
    if args.out:
        cmd = " ".join(["PYTHONPATH=src python benchmarks/scale/speed.py", shlex.join(sys.argv[1:])]).strip()
        head = (
            f"Run {dt.date.today().isoformat()} on {platform.platform()} ({os.cpu_count()} cores), "
            f"Python {platform.python_version()}.\n\n```sh\n{cmd}\n```\n"
        )
        out = Path(args.out)
        body = head + "\n" + "\n".join(lines)
        replace_section(out if out.is_absolute() else REPO_ROOT / out, "## Speed", body)
        print(f"\nwrote the '## Speed' section of {args.out}")


def main() -> None:
    """Parse arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5, help="runs for (a) and (b)")
    parser.add_argument("--calls", type=int, default=50, help="calls per tool for (c)")
    parser.add_argument("--out", default=None, help="update the '## Speed' section of this file")
    args = parser.parse_args()
    logging.getLogger("httpx").setLevel(logging.WARNING)
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
