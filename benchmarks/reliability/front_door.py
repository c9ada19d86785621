"""The HTTP front door under attack (issue 22), before and after, in one table:

    python benchmarks/reliability/front_door.py --before /tmp/main/src --out docs/reliability.md

Each case starts `python -m docs_mcp serve --http …` on loopback from `--src` (and from `--before` when
given) and attacks it from this process with the helpers of tests/hostile/front_door.py: DNS rebinding and
forged Origins, a connection trickling its headers, 1,500 stalled connections against a server limited to
1,024 open files, 10,000 abandoned sessions, the token on the command line.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests"))

# benchmarks/: common.py, question_files.py and the other folders
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from common import md_table, replace_section  # noqa: E402
from hostile.front_door import (  # noqa: E402
    Served,
    Stallers,
    abandon_sessions,
    post,
    raise_own_file_limit,
)

HEADING = "## Second round: the HTTP front door"
TOKEN = "front-door-token-0123456789"
SITE = REPO / "fixtures" / "site"


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", type=Path, default=REPO / "src", help="code under test (a checkout's src/)")
    ap.add_argument("--before", type=Path, default=None, help="an older checkout's src/, for a before column")
    ap.add_argument("--before-label", default=None, help="how the table names --before (default: its path)")
    ap.add_argument("--out", type=Path, default=None, help="markdown file whose section is rewritten")
    ap.add_argument("--sessions", type=int, default=10_000)
    ap.add_argument("--stalled", type=int, default=1_500)
    return ap.parse_args()


def start(src: Path, bind: str, *args: str, **kw) -> Served:
    env = {"PYTHONPATH": str(src.resolve()), "PYTHONDONTWRITEBYTECODE": "1"}
    cache = tempfile.mkdtemp(prefix="front-door-")
    return Served(bind, "--source", str(SITE), "--cache-dir", cache, *args, env=env, **kw)


def probe(host: str, port: int, timeout: float = 15.0, **headers: str) -> tuple[int | str, float]:
    """A new client's initialize: (status or what went wrong, seconds)."""
    t = time.monotonic()
    try:
        status = post(host, port, timeout=timeout, **headers)[0]
    except OSError as exc:
        status = type(exc).__name__
    return status, time.monotonic() - t


def rebinding(src: Path) -> str:
    out = []
    for spelling in ("127.0.0.1", "127.0.0.2", "[0:0:0:0:0:0:0:1]"):
        s = start(src, f"{spelling}:0")
        try:
            out.append(f"{spelling}: {probe(s.host, s.port, Host=f'rebind.example:{s.port}')[0]}")
        finally:
            s.stop()
    return ", ".join(out)


def origin_prefix(src: Path) -> str:
    out = []
    for spelling in ("127.0.0.1", "127.0.0.2"):
        s = start(src, f"{spelling}:0")
        try:
            origin = f"http://{spelling}:{s.port}.rebind.example"
            out.append(f"{spelling}: {probe(s.host, s.port, Origin=origin)[0]}")
        finally:
            s.stop()
    return ", ".join(out)


def header_deadline(src: Path, limit: float = 30.0) -> str:
    s = start(src, "127.0.0.1:0")
    try:
        conn = socket.create_connection((s.host, s.port), timeout=0.25)
        t = time.monotonic()
        while time.monotonic() - t < limit:
            try:
                conn.send(b"X")
                if conn.recv(1) == b"":
                    return f"closed after {time.monotonic() - t:.1f} s"
            except TimeoutError:
                continue
            except OSError:
                return f"closed after {time.monotonic() - t:.1f} s"
        return f"still open after {limit:.0f} s"
    finally:
        s.stop()


def slowloris(src: Path, count: int) -> str:
    s = start(src, "127.0.0.1:0", files=(1024, 1024))
    stallers = Stallers(s.host, s.port, count, seconds=120)
    try:
        deadline = time.monotonic() + 60
        while not stallers.ready and time.monotonic() < deadline:
            time.sleep(0.2)
        results = []
        for _ in range(5):
            results.append(probe(s.host, s.port))
            time.sleep(0.5)
        served = [t for status, t in results if status == 200]
        emfile = sum("Too many open files" in line for line in s.stderr())
        said = f"{len(served)} of 5 new clients served"
        if served:
            said += f" (median {statistics.median(served) * 1000:.0f} ms, max {max(served) * 1000:.0f} ms)"
        if len(served) < 5:
            said += f", {5 - len(served)} not within 15 s"
        return said + (f"; 'Too many open files' logged {emfile:,} times" if emfile else "")
    finally:
        stallers.stop()
        s.stop()


def sessions(src: Path, count: int) -> str:
    s = start(src, "127.0.0.1:0")
    try:
        probe(s.host, s.port)  # warm
        before = s.rss_mb()
        t = time.monotonic()
        statuses = abandon_sessions(s.host, s.port, count)
        took = time.monotonic() - t
        status, seconds = probe(s.host, s.port)
        grown = s.rss_mb() - before
        shown = ", ".join(f"{n:,}× {code}" for code, n in sorted(statuses.items()))
        return (
            f"{shown} in {took:.0f} s; then a new client: {status} in {seconds * 1000:.0f} ms; "
            f"memory {before:.0f} → {before + grown:.0f} MB"
        )
    finally:
        s.stop()


def token(src: Path) -> str:
    s = start(src, "127.0.0.1:0", "--token", TOKEN)
    try:
        visible = TOKEN.encode() in Path(f"/proc/{s.proc.pid}/cmdline").read_bytes()
        warned = any("visible" in line for line in s.stderr())
    finally:
        s.stop()
    with tempfile.NamedTemporaryFile("w", suffix=".token") as f:
        f.write(TOKEN)
        f.flush()
        os.chmod(f.name, 0o600)
        try:
            s = start(src, "127.0.0.1:0", "--token-file", f.name)
        except Exception:  # the older code has no --token-file: it exits before serving
            file_ok = "--token-file unknown"
        else:
            status = probe(s.host, s.port, Authorization=f"Bearer {TOKEN}")[0]
            off = TOKEN.encode() not in Path(f"/proc/{s.proc.pid}/cmdline").read_bytes()
            s.stop()
            file_ok = f"--token-file: {status}, token {'not ' if off else ''}in the process list"
    in_list = "in the process list" if visible else "not in the process list"
    return f"--token: {in_list}, {'a warning' if warned else 'no warning'}; {file_ok}"


AFTER = """\
What answers now: a `Host` that is not the address served on (or `localhost` on loopback, or an
`--allowed-host` name) gets 421, an `Origin` that is not the same scheme, host and port gets 403, each
with a one-line reason; a connection that has not finished its headers within 5 s is closed; at the
connection cap (640 with 1,024 open files, the soft limit being raised to the hard one first) the
connection that has waited longest for its request is closed for the new one; at 500 sessions the least
recently used idle one is ended for a new one (429 only while every session is busy), so memory stays
bounded; `--token` warns, `--token-file` keeps the token out of the process list."""


CASES = [
    ("DNS rebinding", "`Host: rebind.example:PORT` to servers on three loopback spellings", rebinding),
    ("Origin by prefix", "`Origin: http://ADDRESS:PORT.rebind.example`", origin_prefix),
    ("headers never finished", "one connection sending a header byte every 0.25 s", header_deadline),
]


def main() -> None:
    ns = parse_args()
    if not raise_own_file_limit(ns.stalled + 500):
        sys.exit(f"this process may not open {ns.stalled:,} sockets")
    cases = [
        *CASES,
        (
            "slowloris",
            f"{ns.stalled:,} connections trickling headers (reopened when closed), server limited to 1,024 "
            "open files; 5 new clients meanwhile",
            lambda src: slowloris(src, ns.stalled),
        ),
        (
            "abandoned sessions",
            f"{ns.sessions:,} sessions initialized and never closed (4 clients), then a new client",
            lambda src: sessions(src, ns.sessions),
        ),
        ("token", "`--token T`, then `--token-file PATH` (mode 0600)", token),
    ]
    codes = [("after", ns.src)] + ([("before", ns.before)] if ns.before else [])
    rows = []
    for name, tried, run in cases:
        row = [name, tried]
        for label, src in codes:
            print(f"{name} ({label})…", flush=True)
            row.append(run(src))
            print(f"  {row[-1]}", flush=True)
        rows.append(row)
    heads = ["case", "what was tried", "after (this code)"] + (["before"] if ns.before else [])
    if ns.before:  # before first, as in the summary table
        heads[2:] = heads[3], heads[2]
        rows = [[r[0], r[1], r[3], r[2]] for r in rows]
    rev = subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%h"], capture_output=True, text=True)
    body = (
        f"Run {dt.date.today()} on {platform.platform()} ({os.cpu_count()} cores, shared with other jobs), "
        f"Python {platform.python_version()}; after: `{ns.src}` at {rev.stdout.strip() or '?'}"
        + (f", before: {ns.before_label or f'`{ns.before}`'}" if ns.before else "")
        + ".\n\n```sh\npython benchmarks/reliability/front_door.py --before OLDER/src --before-label LABEL --out docs/reliability.md\n```\n\n"
        "Every server is `python -m docs_mcp serve --http ADDRESS:0 --no-index` on loopback, attacked from "
        "the benchmark's process (`tests/hostile/front_door.py`; each case is also a test in "
        "`tests/hostile/test_front_door.py` and `test_session_cap.py`). Statuses are what the attacker got: "
        "200 means the request was served.\n\n" + md_table(heads, rows) + "\n\n" + AFTER
    )
    print(f"\n{HEADING}\n\n{body}")
    if ns.out:
        replace_section(ns.out, HEADING, body)


if __name__ == "__main__":
    main()
