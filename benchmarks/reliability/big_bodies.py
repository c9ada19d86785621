"""Request bodies that expand in memory (issue 43, item 5): N clients at once each POST a `tools/call` of
search_docs (each on a session of its own) whose unused argument is a list of empty objects (or, `--shape string`, one long string) (`{}`, 3 bytes each: a 3.9 MiB body, under the SDK's 4 MiB limit, holds 1.4
million), against `serve --http`; the server's peak RSS (VmHWM) is read before and after.

PYTHONPATH=src python benchmarks/reliability/big_bodies.py [--clients 24] [--mb 3.9] [--src OTHER/src] [--stateless] [--shape objects|string]

Prints the server's RSS when idle (after one small call), its peak under the load and the difference, each
answer's status (counted), the seconds the load took, and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

from hostile.front_door import Served, open_session, post  # noqa: E402


def body(megabytes: float, shape: str = "objects") -> str:
    """A tools/call whose unused argument `padding` fills `megabytes` with `{}` (or one string of `a`)."""
    count = int(megabytes * 1024 * 1024 / 3)
    padding = "[" + ",".join(["{}"] * count) + "]" if shape == "objects" else '"' + "a" * 3 * count + '"'
    head = '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "search_docs", '
    return head + '"arguments": {"query": "tide tables", "padding": ' + padding + "}}}"


def memory(served: Served) -> tuple[float, float]:
    """(VmRSS, VmHWM) of the server in MB."""
    status = Path(f"/proc/{served.proc.pid}/status").read_text()
    rss, peak = (int(re.search(rf"{k}:\s+(\d+)", status).group(1)) / 1024 for k in ("VmRSS", "VmHWM"))
    return rss, peak


def run(clients: int, megabytes: float, src: Path, stateless: bool, shape: str) -> None:
    env = {"PYTHONPATH": str(src.resolve())}
    mode = ["--stateless"] if stateless else []
    site = str(REPO / "fixtures" / "site")
    with tempfile.TemporaryDirectory() as cache:
        served = Served("127.0.0.1:0", "--source", site, "--cache-dir", cache, *mode, env=env)
        try:

            def session() -> dict[str, str]:
                """Headers of a session of its own (none when stateless)."""
                if stateless:
                    return {}
                opened = open_session(served.host, served.port)
                return {"mcp_session_id": opened, "mcp_protocol_version": "2025-06-18"}

            small = body(0.001)
            assert post(served.host, served.port, small, timeout=60, **session())[0] == 200
            idle, _ = memory(served)
            sessions = [session() for _ in range(clients)]
            big = body(megabytes, shape)
            statuses: dict[int | str, int] = {}
            lock = threading.Lock()

            def one(headers: dict[str, str]) -> None:
                try:
                    status: int | str = post(served.host, served.port, big, timeout=120, **headers)[0]
                except Exception as exc:  # reset or timed out: what the client got
                    status = type(exc).__name__
                with lock:
                    statuses[status] = statuses.get(status, 0) + 1

            started = time.monotonic()
            threads = [threading.Thread(target=one, args=(h,)) for h in sessions]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            took = time.monotonic() - started
            load = os.getloadavg()[0]
            after, peak = memory(served)
            answer = post(served.host, served.port, small, timeout=60, **session())
            mode_name = "stateless" if stateless else "sessions"
            print(f"{clients} x {len(big) / 1e6:.1f} MB bodies of {shape} ({mode_name}, code {src})")
            print(
                f"  RSS idle {idle:.0f} MB, peak {peak:.0f} MB (+{peak - idle:.0f} MB), after {after:.0f} MB"
            )
            print(f"  answers: {json.dumps(statuses)}; {took:.1f} s; then a small call: {answer[0]}")
            print(f"  load {load:.1f}")
        finally:
            served.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clients", type=int, default=24)
    ap.add_argument("--mb", type=float, default=3.9)
    ap.add_argument("--src", type=Path, default=REPO / "src")
    ap.add_argument("--stateless", action="store_true")
    ap.add_argument("--shape", choices=["objects", "string"], default="objects")
    args = ap.parse_args()
    run(args.clients, args.mb, args.src, args.stateless, args.shape)


if __name__ == "__main__":
    main()
