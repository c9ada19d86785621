"""Indexing a whole large site: time, MB of HTML per second, peak RSS, index size, search and first-read latency.

Serves a docs folder on 127.0.0.1, runs `docslice index` on it into a fresh cache dir with no crawl limit, and
prints: pages, HTML MB (the indexed pages' files), seconds, MB/s, the peak RSS of the whole process tree
(the indexing process, its forkserver and workers: /proc sampled every 50 ms; RSS summed, and PSS, which
counts a page shared by two processes once), each process's peak by role, the index size and its ratio
to the HTML with a per-table breakdown (SQLite's `dbstat`), `search_docs` p50/p95 over a query set (a
question file, or words of sampled page titles), and the first read of a 700 KB page and of the largest one
(from the index, and fetched and converted without one). `--dump FILE` writes every query's top-10 answer, so two builds'
rankings can be compared (`--compare FILE`).

    PYTHONPATH=src python benchmarks/scale/index_scale.py --docs /usr/share/doc/openjdk-17-jre-headless/api
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable
from pathlib import Path
from urllib.parse import unquote, urlsplit

# benchmarks/: common.py, question_files.py and the other folders
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from common import SRC_DIR, docs_server, load_questions, median, p95

JAVADOC = Path("/usr/share/doc/openjdk-17-jre-headless/api")
TARGETS = {"mb_per_s": 2.5, "rss_mb": 600, "ratio": 0.4, "search_p95_ms": 50, "first_read_ms": 300}
SAMPLE_SECONDS = 0.05
#: The first read timed: the page nearest this size (the issue's 700 KB page), and the largest.
READ_BYTES = 700_000
#: A hit's address (url#section) in a search_docs answer.
_HIT = re.compile(r"^\s+(ROOT/\S+)", re.M)
#: When a hit's page was fetched: differs between two builds of the same pages.
_FETCHED = re.compile(r" · fetched [^\n]*")


def _proc_kb(pid: int, file: str, field: str) -> int:
    """A kB figure of a process from /proc/PID/FILE (0 once it is gone): `status`'s VmHWM is its own peak RSS,
    kept by the kernel (exact, not sampled); `smaps_rollup`'s Pss its proportional set size (its private pages
    plus its share of the ones it shares: summed over a tree, each page counts once)."""
    try:
        with open(f"/proc/{pid}/{file}") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _role(pid: int, parent: int, root_pid: int) -> str:
    """What a process of the indexing tree is: the indexing process, the forkserver (the indexing process's
    child; the workers it forks share its command line), the resource tracker, or a parsing worker."""
    if pid == root_pid:
        return "main"
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return "other"
    if "multiprocessing.resource_tracker" in cmd:
        return "resource_tracker"
    return "forkserver" if "multiprocessing.forkserver" in cmd and parent == root_pid else "worker"


class TreeSample:
    """Peaks of the indexing process tree, sampled from /proc: the tree's summed RSS (a page shared by two
    processes counts twice: the figure the target is held to), its summed PSS (each page once), and each
    process's own peak RSS by role (the kernel's VmHWM); plus each process's CPU seconds."""

    def __init__(self, root_pid: int) -> None:
        self.root_pid = root_pid
        self.rss_kb = 0
        self.pss_kb = 0
        self.cpu: dict[int, float] = {}
        self.per_pid: dict[int, tuple[str, int]] = {}

    def sample(self) -> None:
        children: dict[int, list[int]] = {}
        rss: dict[int, int] = {}
        ticks: dict[int, float] = {}
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat") as f:
                    stat = f.read()
                with open(f"/proc/{entry.name}/statm") as f:
                    pages = int(f.read().split()[1])
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            children.setdefault(int(fields[1]), []).append(int(entry.name))
            rss[int(entry.name)] = pages * os.sysconf("SC_PAGE_SIZE") // 1024
            ticks[int(entry.name)] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        total_rss, total_pss, todo = 0, 0, [(self.root_pid, 0)]
        while todo:
            pid, parent = todo.pop()
            total_rss += rss.get(pid, 0)
            total_pss += _proc_kb(pid, "smaps_rollup", "Pss")
            if pid in ticks:
                self.cpu[pid] = max(self.cpu.get(pid, 0.0), ticks[pid])
            role, peak = self.per_pid.get(pid) or (_role(pid, parent, self.root_pid), 0)
            self.per_pid[pid] = (role, max(peak, rss.get(pid, 0), _proc_kb(pid, "status", "VmHWM")))
            todo += [(child, pid) for child in children.get(pid, [])]
        self.rss_kb = max(self.rss_kb, total_rss)
        self.pss_kb = max(self.pss_kb, total_pss)

    def roles(self) -> dict[str, list[float]]:
        """Each role's processes' peak RSS (MB), largest first."""
        out: dict[str, list[float]] = {}
        for role, peak in self.per_pid.values():
            out.setdefault(role, []).append(peak / 1024)
        return {r: sorted(v, reverse=True) for r, v in out.items()}


def run_index(
    root: str, cache: Path, workers: int | None, concurrency: int | None = None, src: Path = SRC_DIR
) -> tuple[float, TreeSample]:
    """Seconds of `docslice index` over the whole site (the code in `src`), and its process tree's peaks and
    CPU seconds."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(src), os.environ.get("PYTHONPATH")])),
    }
    cmd = [sys.executable, "-m", "docs_mcp", "index", "--source", root, "--cache-dir", str(cache)]
    cmd += ["--crawl-limit", "1000000"] + (["--workers", str(workers)] if workers else [])
    cmd += ["--concurrency", str(concurrency)] if concurrency else []
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    tree = TreeSample(proc.pid)

    def sample() -> None:
        while proc.poll() is None:
            tree.sample()
            time.sleep(SAMPLE_SECONDS)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, _ = proc.communicate()
    seconds = time.perf_counter() - t0
    sampler.join()
    if proc.returncode:
        raise SystemExit(f"index failed ({proc.returncode}):\n{out}")
    return seconds, tree


def html_bytes(db: sqlite3.Connection, docs: Path) -> int:
    """Bytes of the HTML files behind the indexed pages."""
    total = 0
    for (key,) in db.execute("SELECT key FROM pages"):
        path = docs / unquote(urlsplit(key).path).lstrip("/")
        path = path / "index.html" if path.is_dir() else path
        total += path.stat().st_size if path.is_file() else 0
    return total


def table_sizes(db: sqlite3.Connection) -> list[tuple[str, int]]:
    """Bytes per table and index (FTS5's shadow tables under their own names), largest first."""
    rows = db.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
    return [(n, s) for n, s in rows]


def title_queries(db: sqlite3.Connection, n: int) -> list[str]:
    """`n` queries: the words of evenly spaced listed pages' titles (deterministic)."""
    titles = [t for (t,) in db.execute("SELECT title FROM pages WHERE listed=1 ORDER BY key") if t.strip()]
    step = max(1, len(titles) // n)
    return [" ".join(t.replace("(", " ").replace(")", " ").split()[:6]) for t in titles[::step][:n]]


async def searches(root: str, cache: Path, queries: list[str]) -> tuple[list[float], dict[str, str]]:
    """Milliseconds of each `search_docs` call (max_results 10), and its answer per query."""
    from docs_mcp.cli.app import App
    from docs_mcp.cli.arguments import parser

    args = parser().parse_args(["serve", "--source", root, "--cache-dir", str(cache), "--no-index"])
    app = App(args)
    app.search.warm()
    times, answers = [], {}
    for q in queries:
        t0 = time.perf_counter()
        answers[q] = (await app.tools.search_docs(q, max_results=10)).replace(root, "ROOT/")
        times.append((time.perf_counter() - t0) * 1000)
    await app.tools.aclose()
    return times, answers


async def first_reads(root: str, cache: Path, url: str) -> tuple[float, float]:
    """Milliseconds of get_doc_content on `url` in a fresh process state: from the index, and without one."""
    from docs_mcp.cli.app import App
    from docs_mcp.cli.arguments import parser
    from docs_mcp.fetch.sources import SourceSet
    from docs_mcp.settings import Settings
    from docs_mcp.tools.docs import DocsTools

    args = parser().parse_args(["serve", "--source", root, "--cache-dir", str(cache), "--no-index"])
    app = App(args)
    stored = await _timed(app.tools.get_doc_content(url))
    await app.tools.aclose()
    bare = DocsTools(SourceSet.from_specs([root]), Settings())
    fetched = await _timed(bare.get_doc_content(url))
    await bare.aclose()
    return stored, fetched


async def _timed(read: Awaitable[str]) -> float:
    """Milliseconds of one read; NaN when it fails (the deadline, on a busy machine): the build's figures are
    printed all the same."""
    from docs_mcp.errors import DocsMCPError

    t0 = time.perf_counter()
    try:
        await read
    except DocsMCPError:
        return math.nan
    return (time.perf_counter() - t0) * 1000


def read_pages(db: sqlite3.Connection, docs: Path) -> list[tuple[str, int]]:
    """(URL, bytes) of the indexed page whose HTML is nearest READ_BYTES, and of the largest one."""
    sizes = []
    for (key,) in db.execute("SELECT key FROM pages"):
        path = docs / unquote(urlsplit(key).path).lstrip("/")
        sizes.append((key, path.stat().st_size if path.is_file() else 0))
    near = min(sizes, key=lambda ks: abs(ks[1] - READ_BYTES))
    return [near, max(sizes, key=lambda ks: ks[1])]


def report(out: dict, sizes: list[tuple[str, int]]) -> None:
    mb = 1024 * 1024
    print(f"pages: {out['pages']:,} ({out['sections']:,} sections), HTML {out['html_mb']:.1f} MB")
    print(f"index time: {out['seconds']:.1f} s, {out['mb_per_s']:.2f} MB/s, {out['pages_per_s']:.0f} pages/s")
    print(
        f"CPU: {out['cpu_s']:.0f} s in all, {out['main_cpu_s']:.0f} s in the indexing process: on 2 idle cores "
        f"~{out['idle_2core_s']:.0f} s, {out['html_mb'] / out['idle_2core_s']:.2f} MB/s"
    )
    print(
        f"peak RSS (process tree, summed): {out['rss_mb']:.0f} MB; peak PSS (shared pages counted once): "
        f"{out['pss_mb']:.0f} MB"
    )
    roles = out["rss_by_role_mb"]
    print(
        "    peak RSS per process: "
        + "; ".join(f"{r} " + ", ".join(f"{mb:.0f}" for mb in roles[r]) + " MB" for r in sorted(roles))
    )
    print(f"index.sqlite: {out['index_mb']:.1f} MB, {out['ratio']:.2f}x the HTML")
    for name, size in sizes[:14]:
        print(f"    {name:32} {size / mb:8.1f} MB")
    print(
        f"search_docs ({out['queries']} queries): p50 {out['search_p50_ms']:.1f} ms, p95 {out['search_p95_ms']:.1f} ms"
    )
    for r in out["first_reads"]:
        print(
            f"first read (get_doc_content) of {r['page']} ({r['kb']:.0f} KB): {r['stored_ms']:.0f} ms from "
            f"the index, {r['fetched_ms']:.0f} ms fetched and converted"
        )
    checks = [
        ("MB/s", out["mb_per_s"] >= TARGETS["mb_per_s"]),
        ("RSS", out["rss_mb"] <= TARGETS["rss_mb"]),
        ("ratio", out["ratio"] <= TARGETS["ratio"]),
        ("search p95", out["search_p95_ms"] <= TARGETS["search_p95_ms"]),
    ]
    print("targets: " + ", ".join(f"{n} {'met' if ok else 'MISSED'}" for n, ok in checks))


def compare(answers: dict[str, str], path: Path) -> None:
    """Say how many queries' top-10 answers differ from a dump made earlier (status lines left out)."""
    before = json.loads(path.read_text(encoding="utf-8"))

    def hits(text: str) -> list[str]:
        return _HIT.findall(text)

    same = [q for q in answers if q in before and hits(before[q]) == hits(answers[q])]
    text = sum(1 for q in answers if _FETCHED.sub("", before.get(q, "")) == _FETCHED.sub("", answers[q]))
    print(
        f"rankings: {len(same)} of {len(answers)} queries rank as in {path.name} ({text} identical answers)"
    )
    for q in answers:
        if q in before and q not in same:
            print(f"    differs: {q}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--docs", type=Path, default=JAVADOC, help="the docs folder (default: the JDK 17 Javadoc)"
    )
    ap.add_argument("--workers", type=int, default=None, help="parsing processes (default: all cores)")
    ap.add_argument(
        "--concurrency",
        type=int,
        default=None,
        help="requests at a time (1 with --workers 1: the same crawl order each run, for --compare)",
    )
    ap.add_argument("--questions", default=None, help="a question file (default: words of page titles)")
    ap.add_argument("--queries", type=int, default=200, help="title queries without --questions")
    ap.add_argument("--cache-dir", type=Path, default=None, help="index here (kept) instead of a temp dir")
    ap.add_argument("--dump", type=Path, default=None, help="write each query's top-10 answer here (JSON)")
    ap.add_argument("--compare", type=Path, default=None, help="compare the answers with an earlier --dump")
    ap.add_argument(
        "--port", type=int, default=None, help="serve the docs on this port (default: a free one)"
    )
    ap.add_argument("--json", action="store_true", help="print the figures as JSON too")
    ns = ap.parse_args()
    cache = ns.cache_dir or Path(tempfile.mkdtemp(prefix="docslice-scale-"))
    with docs_server(ns.docs, port=ns.port) as root:
        seconds, tree = run_index(root, cache, ns.workers, ns.concurrency)
        cpu, main_cpu = sum(tree.cpu.values()), tree.cpu.get(tree.root_pid, 0.0)
        db = sqlite3.connect(cache / "index.sqlite")
        sizes = table_sizes(db)
        html = html_bytes(db, ns.docs)
        index_bytes = (cache / "index.sqlite").stat().st_size
        queries = (
            [q["query"] for q in load_questions(ns.questions)]
            if ns.questions
            else title_queries(db, ns.queries)
        )
        reads = read_pages(db, ns.docs)
        pages = db.execute("SELECT count(*) FROM pages").fetchone()[0]
        sections = db.execute("SELECT count(*) FROM sections").fetchone()[0]
        db.close()
        times, answers = asyncio.run(searches(root, cache, queries))
        firsts = [asyncio.run(first_reads(root, cache, url)) for url, _ in reads]
    out = {
        "pages": pages,
        "sections": sections,
        "html_mb": html / 1e6,
        "seconds": seconds,
        "mb_per_s": html / 1e6 / seconds,
        "pages_per_s": pages / seconds,
        "rss_mb": tree.rss_kb / 1024,
        "pss_mb": tree.pss_kb / 1024,
        "rss_by_role_mb": tree.roles(),
        "cpu_s": cpu,
        "main_cpu_s": main_cpu,
        # On 2 cores of its own: the CPU shared by both, unless the indexing process alone needs longer.
        "idle_2core_s": max(cpu / 2, main_cpu),
        "index_mb": index_bytes / 1e6,
        "ratio": index_bytes / max(1, html),
        "queries": len(queries),
        "search_p50_ms": median(times),
        "search_p95_ms": p95(times),
        "first_reads": [
            {"page": urlsplit(url).path, "kb": size / 1000, "stored_ms": stored, "fetched_ms": fetched}
            for (url, size), (stored, fetched) in zip(reads, firsts, strict=True)
        ],
        "tables": dict(sizes),
    }
    report(out, sizes)
    if ns.dump:
        ns.dump.write_text(json.dumps(answers, indent=1, ensure_ascii=False), encoding="utf-8")
    if ns.compare:
        compare(answers, ns.compare)
    if ns.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
