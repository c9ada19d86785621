"""Pages cheap to send and costly to convert (issue 34, item 1): each tool call's time on a stateless HTTP
server, the server's CPU seconds for it (all its threads: less sensitive than the wall time to a shared
machine's load), and the slowest /healthz answer while it ran (polled every 50 ms from another thread).

PYTHONPATH=src python benchmarks/reliability/costly_pages.py [--src OTHER/src] [--deadline 60]

The pages are generated into a temporary folder (the server reads it as a local source): a paragraph of
80,000 spaces, 100,000 nested <div>s, 20,000 and 200,000 <h2> headings, and a 3.4 MB section of plain words
(37,000 paragraphs of a 300-word vocabulary) for search_in_doc. Prints the load average beside each row.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

from hostile.front_door import Served, post  # noqa: E402


def html(title: str, body: str) -> str:
    return f"<html><head><title>{title}</title></head><body>{body}</body></html>"


def write_pages(folder: Path) -> None:
    rnd = random.Random(2)
    vocab = ["".join(rnd.choice("abcdefghijklmnop") for _ in range(rnd.randint(3, 9))) for _ in range(300)]
    paragraphs = "".join(f"<p>{' '.join(rnd.choice(vocab) for _ in range(12))}</p>\n" for _ in range(37_000))
    pages = {
        "spaces": html("Spaces", "<h1>Spaces</h1><p>before" + " " * 80_000 + "after</p>"),
        "divs": html("Divs", "<h1>Divs</h1>" + "<div>" * 100_000 + "deep" + "</div>" * 100_000),
        "h20k": html("H", "".join(f"<h2>Heading {i}</h2><p>text {i}</p>" for i in range(20_000))),
        "h200k": html("H", "".join(f"<h2>Heading {i}</h2><p>text {i}</p>" for i in range(200_000))),
        "words": html("Words", "<h1>Words</h1>" + paragraphs),
    }
    for name, text in pages.items():
        (folder / f"{name}.html").write_text(text, encoding="utf-8")
    (folder / "query.txt").write_text(f"{vocab[0]} {vocab[1]}")


class Prober:
    """GET /healthz every 50 ms on its own thread; the slowest answer while running."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.worst = 0.0
        self.failed = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            start = time.monotonic()
            try:
                conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
                conn.request("GET", "/healthz")
                conn.getresponse().read()
                conn.close()
            except OSError:
                self.failed += 1
            self.worst = max(self.worst, time.monotonic() - start)
            self.stop.wait(0.05)

    def finish(self) -> tuple[float, int]:
        self.stop.set()
        self.thread.join()
        return self.worst, self.failed


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used so far (Linux: /proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def call(served: Served, rid: int, tool: str, **arguments: str) -> tuple[float, str]:
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": rid,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }
    )
    start = time.monotonic()
    status, text, _ = post(served.host, served.port, body, timeout=600, Host=f"{served.host}:{served.port}")
    elapsed = time.monotonic() - start
    if status != 200:
        return elapsed, f"HTTP {status}"
    result = json.loads(text).get("result", {})
    answer = result.get("content", [{}])[0].get("text", "")
    head = answer.splitlines()[1] if answer.count("\n") else answer
    return elapsed, ("error: " if result.get("isError") else "") + head[:90]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", type=Path, default=REPO / "src")
    ap.add_argument("--deadline", default="120")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "site"
        folder.mkdir()
        write_pages(folder)
        query = (folder / "query.txt").read_text()
        served = Served(
            "127.0.0.1:0",
            "--stateless",
            "--no-index",  # the calls alone: no background build of the same pages beside them
            "--source",
            str(folder),
            "--cache-dir",
            str(Path(tmp) / "cache"),
            "--deadline",
            args.deadline,
            env={"PYTHONPATH": str(args.src.resolve())},
        )
        cases = [
            ("get_doc_toc", "80,000 spaces", {"url": "spaces.html"}),
            ("get_doc_toc", "100,000 nested divs", {"url": "divs.html"}),
            ("get_doc_toc", "20,000 headings", {"url": "h20k.html"}),
            ("get_doc_toc", "200,000 headings", {"url": "h200k.html"}),
            ("search_in_doc", "3.4 MB section, first call", {"url": "words.html", "query": query}),
            ("search_in_doc", "3.4 MB section, next query", {"url": "words.html", "query": query + " again"}),
        ]
        print("| call | page | seconds | CPU s | slowest /healthz (s) | answer (2nd line) | load |")
        print("|---|---|---:|---:|---:|---|---:|")
        try:
            for rid, (tool, label, arguments) in enumerate(cases, 1):
                prober = Prober(served.host, served.port)
                before = cpu_seconds(served.proc.pid)  # its /healthz answers included (a few ms)
                elapsed, head = call(served, rid, tool, **arguments)
                cpu = cpu_seconds(served.proc.pid) - before
                worst, failed = prober.finish()
                fails = f" ({failed} failed)" if failed else ""
                load = os.getloadavg()[0]
                print(
                    f"| {tool} | {label} | {elapsed:.2f} | {cpu:.2f} | {worst:.2f}{fails} | {head} | {load:.1f} |",
                    flush=True,
                )
        finally:
            served.stop()


if __name__ == "__main__":
    main()
