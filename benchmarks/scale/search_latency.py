"""search_docs latency on a kept index: code versions and semantic settings side by side, round after round.

Each configuration (a source tree, a `DOCS_MCP_SEMANTIC_MODEL` value) runs in a process of its own on the same
index and the same queries (words of sampled page titles); the configurations take turns, round after round,
so a busy spell of the machine hits them all. Per run: wall ms of an in-process `search_docs` call, p50 and
p95 over every call, and over each query's fastest of its passes (less noise); then each figure's median
over the rounds and its ratio to the first configuration's.

    PYTHONPATH=src python benchmarks/scale/index_scale.py --cache-dir /tmp/jdk ...   # once: an index to keep
    python benchmarks/scale/search_latency.py --cache-dir /tmp/jdk --root http://127.0.0.1:PORT/ \
        --config old:../v030/src:off --config new:src:auto --config new-off:src:off
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

FIGURES = ("p50", "p95", "min_p50", "min_p95")

#: What one configuration's process runs (its source tree first on sys.path).
CHILD = """
import asyncio, json, sqlite3, statistics, sys, time
sys.path[:0] = [{bench!r}, {bench_root!r}]
from index_scale import title_queries
from common import p95

async def main():
    from docs_mcp.cli.app import App
    from docs_mcp.cli.arguments import parser
    db = sqlite3.connect({index!r}); queries = title_queries(db, {queries}); db.close()
    app = App(parser().parse_args(["serve", "--source", {root!r}, "--cache-dir", {cache!r}, "--no-index"]))
    app.search.warm()
    for q in queries[:40]:
        await app.tools.search_docs(q, max_results=10)
    every, per = [], {{q: [] for q in queries}}
    for _ in range({passes}):
        for q in queries:
            t0 = time.perf_counter()
            await app.tools.search_docs(q, max_results=10)
            ms = (time.perf_counter() - t0) * 1000
            every.append(ms); per[q].append(ms)
    fastest = [min(v) for v in per.values()]
    print(json.dumps({{"p50": statistics.median(every), "p95": p95(every),
                      "min_p50": statistics.median(fastest), "min_p95": p95(fastest)}}))
    await app.tools.aclose()

asyncio.run(main())
"""


def run(config: str, args: argparse.Namespace) -> dict[str, float]:
    """One run of one configuration (`label:src:mode`) in its own process: its figures."""
    _, src, mode = config.split(":", 2)
    bench = str(Path(__file__).resolve().parent)
    code = CHILD.format(
        bench=bench,
        bench_root=str(Path(__file__).resolve().parents[1]),
        index=str(args.cache_dir / "index.sqlite"),
        queries=args.queries,
        root=args.root,
        cache=str(args.cache_dir),
        passes=args.passes,
    )
    env = {**os.environ, "PYTHONPATH": str(Path(src).resolve()), "DOCS_MCP_SEMANTIC_MODEL": mode}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{config}: the run failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache-dir", type=Path, required=True, help="a cache dir holding a built index")
    ap.add_argument("--root", required=True, help="the docs root the index was built from (not fetched)")
    ap.add_argument("--config", action="append", required=True, help="label:source tree:semantic model")
    ap.add_argument("--rounds", type=int, default=3, help="turns of every configuration")
    ap.add_argument("--passes", type=int, default=3, help="passes over the queries per run")
    ap.add_argument("--queries", type=int, default=200, help="title queries")
    args = ap.parse_args()
    runs: dict[str, list[dict[str, float]]] = {c.split(":", 1)[0]: [] for c in args.config}
    for r in range(args.rounds):
        for config in args.config:
            figures = run(config, args)
            runs[config.split(":", 1)[0]].append(figures)
            print(
                f"round {r + 1} {config.split(':', 1)[0]:12s} "
                + "  ".join(f"{k} {figures[k]:.1f}" for k in FIGURES)
            )
    medians = {label: {k: statistics.median(f[k] for f in rs) for k in FIGURES} for label, rs in runs.items()}
    first = medians[args.config[0].split(":", 1)[0]]
    print(f"\nmedian of {args.rounds} rounds (ms; ratio to the first configuration)")
    for label, m in medians.items():
        print(f"{label:12s} " + "  ".join(f"{k} {m[k]:.1f} ({m[k] / first[k]:.2f}x)" for k in FIGURES))


if __name__ == "__main__":
    main()
