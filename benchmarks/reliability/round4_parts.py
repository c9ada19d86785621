"""The parts of round4.py: each measures one finding of issue 43 on the code of `src`, into `results`."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(HERE))  # costly_pages.py, round4_*.py

from hostile.front_door import Served, hold_stream, open_session, post  # noqa: E402
from round4_probes import (  # noqa: E402
    LinkOrigin,
    drained,
    environ,
    get,
    held_open,
    readyz_text,
    say,
    session_headers,
    timed,
    tool_call,
)

SITE = REPO / "fixtures" / "site"


def part_stateless(src: Path, results: dict) -> None:
    """A stateless server: GET /mcp answered (405) at once, or held open."""
    with tempfile.TemporaryDirectory() as cache:
        served = Served(
            "127.0.0.1:0", "--stateless", "--source", str(SITE), "--cache-dir", cache, env=environ(src)
        )
        try:
            status, took = get(served.host, served.port, "/mcp", timeout=10)
            held = status == 200 and held_open(served.host, served.port)
        finally:
            served.stop()
    said = f"{status} in {took * 1000:.0f} ms" if status else f"no answer in {took:.0f} s"
    said += ", then a stream held open 10 s (neither sending nor closing)" if held else ""
    say(results, "stateless_get", said, f"stateless GET /mcp: {said}")


def part_defect1(src: Path, results: dict) -> None:
    """Defect 1 (a name of 64,000 parts), and the same page with a name of 4 parts as the control."""
    defect1(src, results, 64_000, "defect1")
    defect1(src, results, 4, "control1")


def defect1(src: Path, results: dict, parts: int, key: str) -> None:
    """`search "ab cd"` on a page of a `parts`-part dotted name; /healthz during three search_docs."""
    import statistics
    import threading

    with tempfile.TemporaryDirectory() as tmp:
        folder, cache = Path(tmp) / "site", Path(tmp) / "cache"
        folder.mkdir()
        names = "<dt>" + "ab." * parts + "x(y)</dt><dd>A name.</dd><dt>zz.cd(q)</dt><dd>Another.</dd>"
        (folder / "names.html").write_text(
            f"<html><head><title>Names</title></head><body><h1>Names</h1><dl>{names}</dl></body></html>"
        )
        base = ["--source", str(folder), "--cache-dir", str(cache)]
        timed([*base, "index"], src)
        wall, cpu, _, _ = timed([*base, "search", "ab cd"], src)
        say(
            results,
            f"{key}_search",
            [wall, cpu],
            f'{parts:,} parts: search "ab cd": {wall:.2f} s wall, {cpu:.2f} s CPU',
        )
        served = Served("127.0.0.1:0", *base, env=environ(src))
        try:
            session = open_session(served.host, served.port)
            waits: list[float] = []
            done = threading.Event()

            failed: list[float] = []

            def poll() -> None:
                while not done.is_set():
                    start = time.monotonic()
                    try:
                        waits.append(get(served.host, served.port, "/healthz")[1])
                    except OSError:  # reset or refused: counted, its wait kept
                        failed.append(time.monotonic() - start)
                        waits.append(failed[-1])
                    done.wait(0.02)

            poller = threading.Thread(target=poll)
            poller.start()
            calls = []
            for _ in range(3):
                start = time.monotonic()
                with contextlib.suppress(OSError):  # no answer within tool_call's 120 s: its wait is kept
                    tool_call(
                        served.host,
                        served.port,
                        "search_docs",
                        {"query": "ab cd"},
                        **session_headers(session),
                    )
                calls.append(time.monotonic() - start)
            done.set()
            poller.join()
        finally:
            served.stop()
    p50, worst = statistics.median(waits) * 1000, max(waits) * 1000
    say(
        results,
        f"{key}_healthz",
        [p50, worst, calls, len(failed)],
        f"/healthz during 3 search_docs ({', '.join(f'{c:.2f}' for c in calls)} s): p50 {p50:.0f} ms, "
        f"max {worst:.0f} ms, {len(failed)} of {len(waits)} failed",
    )


def part_streams(src: Path, results: dict, count: int = 500) -> None:
    """500 sessions' idle GET /mcp streams from 17 loopback addresses, then a new client's first tool call."""
    with tempfile.TemporaryDirectory() as cache:
        served = Served("127.0.0.1:0", "--source", str(SITE), "--cache-dir", cache, env=environ(src))
        streams, refused = [], 0
        try:
            for i in range(count):
                try:
                    session = open_session(served.host, served.port)
                    streams.append(
                        hold_stream(served.host, served.port, session, source=f"127.0.0.{2 + i % 17}")
                    )
                except (AssertionError, OSError):
                    refused += 1
            start = time.monotonic()
            try:
                status, body, headers = post(served.host, served.port, timeout=60)
                if status == 200:
                    session = headers["mcp-session-id"]
                    note = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
                    post(served.host, served.port, note, **session_headers(session))
                    status, body = tool_call(
                        served.host,
                        served.port,
                        "search_docs",
                        {"query": "tide tables"},
                        **session_headers(session),
                    )
                said = f"{status} in {time.monotonic() - start:.2f} s" + (
                    "" if status == 200 else f" ({body[:90]!r})"
                )
            except OSError as exc:
                said = f"{type(exc).__name__} after {time.monotonic() - start:.1f} s"
        finally:
            for s in streams:
                s.close()
            served.stop()
    said = f"{len(streams)} streams held ({refused} refused); new client's first tool call: {said}"
    say(results, "streams", said, said)


def part_bodies(src: Path, results: dict) -> None:
    out = subprocess.run(
        [sys.executable, str(HERE / "big_bodies.py"), "--clients", "24", "--mb", "3.9", "--src", str(src)],
        capture_output=True,
        text=True,
        timeout=1800,
        env={**os.environ, "PYTHONPATH": str(REPO / "src")},
    ).stdout
    found = re.search(r"RSS idle (\d+) MB, peak (\d+) MB \(\+(\d+) MB\)", out)
    answers = re.search(r"answers: (\{.*?\})", out)
    value = [int(found.group(1)), int(found.group(2)), int(found.group(3))] if found else None
    said = (
        f"idle {value[0]} MB, peak {value[1]} MB (+{value[2]} MB); answers {answers.group(1) if answers else '?'}"
        if value
        else out[-300:]
    )
    say(results, "bodies", [value, answers.group(1) if answers else None], said)


def part_passwords(src: Path, results: dict) -> None:
    """Every form of test_secrets.py: the password in `search`'s output, or a server's stderr, tool error, /readyz."""
    from concurrent.futures import ThreadPoolExecutor

    from hostile import test_secrets as T

    def one(url: str, tmp: Path) -> list[str]:
        base = ["--source", str(SITE), "--cache-dir", str(tmp), "--index-url", url]
        where = []
        if T.leaks(timed([*base, "search", "tide tables"], src)[3]):
            where.append("CLI")
        try:
            served = Served("127.0.0.1:0", "--stateless", *base, env=environ(src))
        except (AssertionError, OSError) as exc:  # it did not start: what it said is in the message
            return where + (["server start"] if T.leaks(str(exc)) else [])
        try:
            _, error = tool_call(served.host, served.port, "search_docs", {"query": "tide tables"})
            body = readyz_text(served)
            where += [name for name, text in (("tool error", error), ("/readyz", body)) if T.leaks(text)]
        finally:
            served.stop()
            said = "".join(served.before) + drained(served)
        return where + (["log"] if T.leaks(said) else [])

    with tempfile.TemporaryDirectory() as tmp:
        forms = T.forms(Path(tmp) / "pgpass")
        with ThreadPoolExecutor(4) as pool:
            found = list(pool.map(lambda f: one(f[0], Path(tempfile.mkdtemp(dir=tmp))), forms))
    shown = {url: where for (url, _), where in zip(forms, found, strict=True) if where}
    said = f"{len(shown)} of {len(forms)} forms show the password" + "".join(
        f"\n    {u!r}: {', '.join(w)}" for u, w in shown.items()
    )
    say(results, "passwords", [len(shown), len(forms), {u: w for u, w in shown.items()}], said)


def part_costly(src: Path, results: dict) -> None:
    """The two round-3 pages still over 3 s: a 20,000-heading outline and a 3.4 MB section's first search."""
    import costly_pages as P

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "site"
        folder.mkdir()
        P.write_pages(folder)
        query = (folder / "query.txt").read_text()
        served = Served(
            "127.0.0.1:0",
            "--stateless",
            "--source",
            str(folder),
            "--cache-dir",
            str(Path(tmp) / "cache"),
            "--deadline",
            "120",
            env=environ(src),
        )
        try:
            for rid, (key, tool, arguments) in enumerate(
                [
                    ("costly_toc", "get_doc_toc", {"url": "h20k.html"}),
                    ("costly_search", "search_in_doc", {"url": "words.html", "query": query}),
                ],
                1,
            ):
                before = P.cpu_seconds(served.proc.pid)
                wall, head = P.call(served, rid, tool, **arguments)
                cpu = P.cpu_seconds(served.proc.pid) - before
                say(
                    results,
                    key,
                    [wall, cpu],
                    f"{tool} {arguments['url']}: {wall:.2f} s wall, {cpu:.2f} s CPU ({head[:60]})",
                )
        finally:
            served.stop()


def part_links(src: Path, results: dict, crawl_limit: int = 40, links: int = 200_000) -> None:
    """A 8.5 MB page of 69k hidden links: rows and index size; a crawl of pages of 200k unique links: peak RSS."""
    import random
    import sqlite3

    rnd = random.Random(4)
    with tempfile.TemporaryDirectory() as tmp:
        folder, cache = Path(tmp) / "site", Path(tmp) / "cache"
        folder.mkdir()
        word = lambda: "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(6))  # noqa: E731
        anchors = "".join(
            f'<a href="t{i}.html">{" ".join(word() for _ in range(14))}</a>\n' for i in range(69_000)
        )
        page = f"<html><head><title>Links</title></head><body><h1>Links</h1><p>Visible text.</p><div hidden>{anchors}</div></body></html>"
        (folder / "links.html").write_text(page)
        (folder / "t1.html").write_text(
            "<html><head><title>T</title></head><body><h1>T</h1><p>A target.</p></body></html>"
        )
        wall, _, rss, _ = timed(["--source", str(folder), "--cache-dir", str(cache), "index"], src)
        [db] = cache.rglob("index.sqlite")
        rows = sqlite3.connect(db).execute("SELECT count(*) FROM inbound_words").fetchone()[0]
        size = sum(p.stat().st_size for p in db.parent.glob("index.sqlite*")) / 1e6
        say(
            results,
            "links_rows",
            [rows, size, rss],
            f"{len(page) / 1e6:.1f} MB page of 69,000 hidden links: {rows:,} rows, index {size:.0f} MB, indexer peak RSS {rss:.0f} MB ({wall:.0f} s)",
        )
        with LinkOrigin(links) as origin:
            wall, _, rss, said = timed(
                [
                    "--source",
                    origin,
                    "--cache-dir",
                    str(Path(tmp) / "crawl"),
                    "--crawl-limit",
                    str(crawl_limit),
                    "index",
                ],
                src,
            )
        pages = re.findall(r"(\d[\d,]*) pages", said)
        say(
            results,
            "crawl_rss",
            [rss, int(pages[-1].replace(",", "")) if pages else None],
            f"crawl of {links:,}-link pages, --crawl-limit {crawl_limit}: peak RSS {rss:.0f} MB ({wall:.0f} s; "
            f"it said {said.strip().splitlines()[-2:]!r})",
        )
