"""Slowloris on request bodies (issue 34, item 3): N connections send complete headers, then a body a byte a
second (reopened when closed), against `serve --http` limited to 1,024 open files; meanwhile new clients
initialize a session. Then SIGTERM, with the slow clients still connected.

PYTHONPATH=src python benchmarks/reliability/slow_bodies.py [--bodies 510 1500] [--src OTHER/src] [--stateless]

Prints per N: each new client's time to 200 (or its failure), the server's stderr lines (tracebacks counted),
seconds from SIGTERM to exit, and the load average.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

from hostile.front_door import Served, SlowBodies, raise_own_file_limit, time_to_serve  # noqa: E402


def run(bodies: int, src: Path, stateless: bool) -> None:
    env = {"PYTHONPATH": str(src.resolve())}
    mode = ["--stateless"] if stateless else []
    with tempfile.TemporaryDirectory() as cache:
        served = Served(
            "127.0.0.1:0",
            "--source",
            str(REPO / "fixtures" / "site"),
            "--cache-dir",
            cache,
            *mode,
            files=(1024, 1024),
            env=env,
        )
        slow = SlowBodies(served.host, served.port, bodies, seconds=120)
        deadline = time.monotonic() + 60
        while not slow.ready and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(2)
        times = []
        for _ in range(5):
            try:
                times.append(f"{time_to_serve(served.host, served.port, timeout=15):.2f} s")
            except Exception as exc:  # refused, reset or timed out: what a new client got
                times.append(f"{type(exc).__name__}: {str(exc)[:80]}")
            time.sleep(1.0)
        load = os.getloadavg()[0]
        said = served.stderr()
        started = time.monotonic()
        served.proc.terminate()
        try:
            served.proc.wait(timeout=60)
            stopped = f"{time.monotonic() - started:.1f} s"
        except Exception:
            served.proc.kill()
            stopped = "not within 60 s (killed)"
        slow.stop()
        text = "".join(said)
        print(
            f"{bodies} slow bodies ({slow.opened} opened, {slow.reopened} reopened after the server closed them)"
        )
        print(f"  new clients: {', '.join(times)}")
        print(f"  stderr: {len(said)} lines, {text.count('Traceback')} tracebacks, {len(text):,} bytes")
        for line in said[:4]:
            print(f"    {line.rstrip()[:160]}")
        print(f"  SIGTERM to exit: {stopped}; load {load:.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bodies", type=int, nargs="+", default=[510, 1500])
    ap.add_argument("--src", type=Path, default=REPO / "src")
    ap.add_argument("--stateless", action="store_true")
    args = ap.parse_args()
    if not raise_own_file_limit(max(args.bodies) + 500):
        sys.exit("this process may not open enough sockets")
    for n in args.bodies:
        run(n, args.src, args.stateless)


if __name__ == "__main__":
    main()
