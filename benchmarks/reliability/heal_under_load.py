"""The index overwritten with random bytes while callers search it (issue 34, item 2): crashes and internal
errors per try. Each try runs in a child process, so a crash (SIGSEGV) is counted, not suffered.

PYTHONPATH=src python benchmarks/reliability/heal_under_load.py [--tries 3] [--callers 4] [--seconds 4]

Prints, per try: the child's exit code, answers by kind (hits, the rebuild message, other DocsMCPError,
internal error: any other exception), and the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

SITE = Path(__file__).resolve().parents[2] / "fixtures" / "site"
QUERIES = ["harmonic constituents", "tide tables", "resampling", "loading data", "timestamps UTC"]


def child(cache: str, callers: int, seconds: float) -> dict:
    """Index the fixture site, then search from `callers` threads while the file is overwritten (three
    times, a second apart) with random bytes; counts of each kind of answer."""
    from docs_mcp.cli.app import App
    from docs_mcp.cli.arguments import parser
    from docs_mcp.errors import DocsMCPError

    argv = ["serve", "--cache-dir", cache, "--source", str(SITE), "--no-index"]
    first = App(parser().parse_args(argv))
    asyncio.run(first.indexer.run())
    first.index.close()
    app = App(parser().parse_args(argv))
    counts: Counter[str] = Counter()
    samples: dict[str, str] = {}
    stop = time.monotonic() + seconds

    def caller(k: int) -> None:
        """Ten calls on this thread, then the next ten on a new one: a pool's threads come and go, and a new
        thread opens a new connection, which reads the file itself rather than its connection's cache."""
        for n in range(10):
            if time.monotonic() > stop:
                return
            try:
                app.search.search(QUERIES[(k + n) % len(QUERIES)], 5)
                app.search.status_line()
                counts["answered"] += 1
            except DocsMCPError as exc:
                kind = "rebuilt message" if "damaged while in use" in str(exc) else "other DocsMCPError"
                counts[kind] += 1
                samples.setdefault(kind, str(exc)[:200])
            except Exception as exc:  # what a tool call would answer as "unexpected …"
                counts["internal error"] += 1
                samples.setdefault("internal error", f"{type(exc).__name__}: {exc}"[:200])

    def chain(k: int) -> None:
        while time.monotonic() < stop:
            t = threading.Thread(target=caller, args=(k,))
            t.start()
            t.join()

    threads = [threading.Thread(target=chain, args=(k,)) for k in range(callers)]
    for t in threads:
        t.start()
    path = Path(cache) / "index.sqlite"
    for _ in range(3):
        time.sleep(seconds / 4)
        if path.exists():
            path.write_bytes(os.urandom(path.stat().st_size))
    for t in threads:
        t.join()
    return {"counts": dict(counts), "samples": samples}


def one_try(callers: int, seconds: float) -> dict:
    with tempfile.TemporaryDirectory() as cache:
        run = subprocess.run(
            [
                sys.executable,
                __file__,
                "--child",
                cache,
                "--callers",
                str(callers),
                "--seconds",
                f"{seconds}",
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
    lines = [ln for ln in run.stdout.splitlines() if ln.startswith("{")]
    result = json.loads(lines[-1]) if lines else {"counts": {}, "samples": {"stderr": run.stderr[-300:]}}
    return {"exit": run.returncode, **result}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tries", type=int, default=3)
    ap.add_argument("--callers", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.callers, args.seconds)))
        return
    crashes = internal = 0
    for k in range(args.tries):
        got = one_try(args.callers, args.seconds)
        crashes += got["exit"] != 0
        internal += got["counts"].get("internal error", 0)
        print(f"try {k + 1}: exit {got['exit']}, {got['counts']}, load {os.getloadavg()[0]:.1f}")
        for kind, text in got["samples"].items():
            print(f"    {kind}: {text}")
    print(f"{args.tries} tries, {args.callers} callers: {crashes} crashes, {internal} internal-error answers")


if __name__ == "__main__":
    main()
