"""search_docs latency on a kept index: code versions and semantic settings side by side, round after round.

Each configuration (a source tree, a `DOCS_MCP_SEMANTIC_MODEL` value, and optionally an index of its own: an
older version cannot read a newer schema) runs in a process of its own on the same queries (words of sampled
page titles, read once from the first configuration's index); the configurations take turns, round after
round, each round starting one configuration later (in two fixed-order runs the first of a round was slower
in 5 of 6 rounds, whichever version it was), so a busy spell of the machine hits them all. The child imports
only its configuration's code, never this tree's, and says which `docs_mcp` it ran: a run on another tree's
code stops the script. A version's result cache (repeated questions answered without ranking) is off, so
every call ranks. Per run: wall ms of an in-process `search_docs` call and the process's CPU ms in it (every
thread), p50 and p95 over every call, and the wall p50 and p95 over each query's fastest of its passes (less
noise); then each figure's median over the rounds and its ratio to the first configuration's.

    PYTHONPATH=src python benchmarks/scale/index_scale.py --cache-dir /tmp/jdk ...   # once: an index to keep
    python benchmarks/scale/search_latency.py --cache-dir /tmp/jdk --root http://127.0.0.1:PORT/ \
        --config old:../v030/src:off:/tmp/jdk-old --config new:src:auto --config new-off:src:off
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# benchmarks/: common.py
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from common import median, p95
from index_scale import title_queries

FIGURES = ("p50", "p95", "cpu_p50", "cpu_p95", "min_p50", "min_p95")

#: What one configuration's process runs: only its own source tree's code (PYTHONPATH), nothing of this tree's
#: (benchmarks/common.py puts this tree's src first on sys.path: every version then ran this tree's code).
CHILD = """
import asyncio, json, sys, time

async def main():
    import docs_mcp
    from docs_mcp.cli.app import App
    from docs_mcp.cli.arguments import parser
    queries = json.load(open({queries!r}))
    app = App(parser().parse_args(["serve", "--source", {root!r}, "--cache-dir", {cache!r}, "--no-index"]))
    if app.search is None:
        sys.exit(app.tools.search_note)  # e.g. an index of a newer schema: give this version its own copy
    if getattr(app.search, "results", None) is not None:
        app.search.results.size = 0  # every call ranks, as in versions without the cache
    app.search.warm()
    for q in queries[:40]:
        await app.tools.search_docs(q, max_results=10)
    wall, cpu = [], []
    for _ in range({passes}):
        for q in queries:
            t0, c0 = time.perf_counter(), time.process_time()
            await app.tools.search_docs(q, max_results=10)
            wall.append((time.perf_counter() - t0) * 1000); cpu.append((time.process_time() - c0) * 1000)
    print(json.dumps({{"code": docs_mcp.__file__, "wall": wall, "cpu": cpu}}))
    await app.tools.aclose()

asyncio.run(main())
"""


def parts(config: str, args: argparse.Namespace) -> tuple[str, Path, str, Path]:
    """A configuration's label, source tree, semantic model and cache dir (`label:src:mode[:cache-dir]`)."""
    label, src, mode, *cache = config.split(":", 3)
    return label, Path(src).resolve(), mode, Path(cache[0]) if cache else args.cache_dir


def run(config: str, args: argparse.Namespace, queries: Path) -> dict[str, float]:
    """One run of one configuration in its own process: its figures."""
    label, src, mode, cache = parts(config, args)
    code = CHILD.format(queries=str(queries), root=args.root, cache=str(cache), passes=args.passes)
    env = {**os.environ, "PYTHONPATH": str(src), "DOCS_MCP_SEMANTIC_MODEL": mode}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{config}: the run failed:\n{proc.stderr[-2000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    if not Path(out["code"]).resolve().is_relative_to(src):
        raise SystemExit(f"{label}: ran {out['code']}, not the code under {src}")
    n = len(out["wall"]) // args.passes
    fastest = [min(out["wall"][i::n]) for i in range(n)]  # each query's fastest pass
    return {
        "p50": median(out["wall"]),
        "p95": p95(out["wall"]),
        "cpu_p50": median(out["cpu"]),
        "cpu_p95": p95(out["cpu"]),
        "min_p50": median(fastest),
        "min_p95": p95(fastest),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache-dir", type=Path, required=True, help="a cache dir holding a built index")
    ap.add_argument("--root", required=True, help="the docs root the index was built from (not fetched)")
    ap.add_argument(
        "--config",
        action="append",
        required=True,
        help="label:source tree:semantic model[:cache dir] (default --cache-dir; an older schema's copy)",
    )
    ap.add_argument("--rounds", type=int, default=3, help="turns of every configuration")
    ap.add_argument("--passes", type=int, default=3, help="passes over the queries per run")
    ap.add_argument("--queries", type=int, default=200, help="title queries")
    args = ap.parse_args()
    labels = [parts(c, args)[0] for c in args.config]
    db = sqlite3.connect(parts(args.config[0], args)[3] / "index.sqlite")
    with tempfile.TemporaryDirectory(prefix="search-latency-") as tmp:
        queries = Path(tmp) / "queries.json"
        queries.write_text(json.dumps(title_queries(db, args.queries)))
        db.close()
        runs: dict[str, list[dict[str, float]]] = {label: [] for label in labels}
        for r in range(args.rounds):
            # Each round starts one configuration later: with a fixed order, the order entered the ratio.
            turn = [(r + i) % len(labels) for i in range(len(labels))]
            for label, config in ((labels[i], args.config[i]) for i in turn):
                figures = run(config, args, queries)
                runs[label].append(figures)
                print(f"round {r + 1} {label:12s} " + "  ".join(f"{k} {figures[k]:.1f}" for k in FIGURES))
    medians = {label: {k: statistics.median(f[k] for f in rs) for k in FIGURES} for label, rs in runs.items()}
    first = medians[labels[0]]
    print(f"\nmedian of {args.rounds} rounds (ms; ratio to the first configuration)")
    for label, m in medians.items():
        print(f"{label:12s} " + "  ".join(f"{k} {m[k]:.1f} ({m[k] / first[k]:.2f}x)" for k in FIGURES))


if __name__ == "__main__":
    main()
