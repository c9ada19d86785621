"""Hostile: several processes on one index (issue 13, items 8 and 9).

Concurrent `docs-mcp index` runs on one cache dir, a search beside a re-index in another process, and an
interrupted `index` (Ctrl-C, kill -9) that must leave no process behind. Everything runs on local folders
or on 127.0.0.1, bounded in count and time.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser

SITE = Path(__file__).resolve().parents[2] / "fixtures" / "site"
PAGES = 120
pytestmark = pytest.mark.timeout(300)  # eight concurrent builds are waited on for up to 240 s


def many_pages(root: Path, count: int = PAGES) -> Path:
    """A folder of `count` small pages, each with its own word (`quillwortN`) and a shared one."""
    root.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        body = "".join(
            f"<h2>Gauge {n} part {k}</h2><p>Tide gauge {n} logs quillwort{n} readings, part {k}.</p>"
            for k in range(6)
        )
        (root / f"page{n:03}.html").write_text(
            f"<html><body><main><h1>Page {n}</h1>{body}</main></body></html>"
        )
    return root


def docs_mcp(*args: str, cache: Path, **kwargs) -> subprocess.Popen:
    env = {**os.environ, "DOCS_MCP_CACHE_DIR": str(cache)}
    return subprocess.Popen(
        [sys.executable, "-m", "docs_mcp", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def app_for(cache: Path, source: str) -> App:
    return App(parser().parse_args(["serve", "--source", source, "--cache-dir", str(cache), "--no-index"]), 1)


def test_concurrent_index_runs_on_one_cache_dir_all_finish_with_the_full_index(tmp_path):
    docs = many_pages(tmp_path / "docs")
    cache = tmp_path / "cache"
    runs = [docs_mcp("index", "--source", str(docs), "--workers", "1", cache=cache) for _ in range(8)]
    results = [(p.wait(timeout=240), *p.communicate()) for p in runs]
    failed = [(code, err[-500:]) for code, _, err in results if code != 0]
    assert failed == []
    assert not any("database is locked" in out + err for _, out, err in results)
    app = app_for(cache, str(docs))
    assert app.index.page_count() == PAGES
    assert all(f"{PAGES} pages" in out for _, out, _ in results)  # each run ends with the full index


REWRITER = """
import asyncio, os, sys, time
from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser

docs, cache, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
app = App(parser().parse_args(["index", "--source", docs, "--cache-dir", cache]), 1)
end = time.monotonic() + seconds
rounds = 0
while time.monotonic() < end:
    stamp = time.time() + rounds + 1
    for name in os.listdir(docs):  # every page changed: each refresh deletes and rewrites all of them
        os.utime(os.path.join(docs, name), (stamp, stamp))
    asyncio.run(app.indexer.run(refresh=True))
    rounds += 1
print(rounds)
"""


def test_a_search_beside_a_reindex_in_another_process_always_answers(tmp_path):
    docs = many_pages(tmp_path / "docs", 40)
    cache = tmp_path / "cache"
    app = app_for(cache, str(docs))
    asyncio.run(app.indexer.run())
    writer = subprocess.Popen(
        [sys.executable, "-c", REWRITER, str(docs), str(cache), "8"], stdout=subprocess.PIPE, text=True
    )
    errors, searches, found = [], 0, 0
    try:
        while writer.poll() is None:
            n = searches % 40
            searches += 1
            try:
                hits = app.search.search(f"quillwort{n} tide gauge readings", 5)
            except Exception as exc:
                errors.append(f"{exc.__class__.__name__}: {exc}")
                continue
            found += any(h.url.endswith(f"page{n:03}.html") for h in hits)
    finally:
        writer.wait(timeout=60)
    rounds = int(writer.stdout.read().strip() or 0)
    assert rounds >= 1 and searches > 20, (rounds, searches)  # each round rewrites all 40 pages
    assert errors == [], errors[:5]
    assert found >= 0.9 * searches  # every snapshot is a whole index: the page is there before and after


# --- interrupting `index` ---------------------------------------------------------------------------
def descendants(pid: int) -> set[int]:
    """Every process below `pid` (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.add(child)
            todo.append(child)
    return out


def alive(pids: set[int]) -> set[int]:
    out = set()
    for pid in pids:
        try:
            state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":  # a zombie has exited; its parent just has not read its status
            out.add(pid)
    return out


class Lines:
    """A child's stream read line by line on a thread of its own, so a test waits for a line, not a guess."""

    def __init__(self, stream) -> None:
        self.lines: list[str] = []
        self.closed = False
        self.changed = threading.Condition()
        self.reader = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.reader.start()

    def _read(self, stream) -> None:
        for line in stream:
            with self.changed:
                self.lines.append(line)
                self.changed.notify_all()
        with self.changed:
            self.closed = True
            self.changed.notify_all()

    def wait_for(self, text: str, seconds: float) -> bool:
        """True once a line holding `text` was read; False when the stream ends or `seconds` pass first."""
        with self.changed:
            self.changed.wait_for(lambda: self.closed or any(text in x for x in self.lines), seconds)
            return any(text in x for x in self.lines)

    def text(self, seconds: float = 30) -> str:
        """Everything read, once the stream has ended (or `seconds` have passed)."""
        self.reader.join(seconds)
        with self.changed:
            return "".join(self.lines)


def sigint_as_from_a_terminal() -> None:
    """In the child, before exec: SIGINT at its default, as a shell starts a foreground command. A test run
    in the background (`pytest &`, a CI runner that ignores SIGINT) has it ignored, and a child inherits an
    ignored signal: the build would then run to its end whatever Ctrl-C the test sends."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def started_indexing(tmp_path: Path, pages: int = 1000) -> tuple[subprocess.Popen, set[int], Lines]:
    """`docs-mcp index --workers 2` mid-build, with its helper processes and its stderr. It is caught once its
    first progress line is out (a page is indexed: the workers run and Ctrl-C is handled), and the folder is
    large enough (seconds of work) that the build cannot end before a signal sent then arrives."""
    docs = many_pages(tmp_path / "docs", pages)
    proc = docs_mcp(
        "index",
        "--source",
        str(docs),
        "--workers",
        "2",
        cache=tmp_path / "cache",
        start_new_session=True,
        preexec_fn=sigint_as_from_a_terminal,
    )
    err = Lines(proc.stderr)
    assert err.wait_for(f"/{pages:,} pages (folder)", 60), "no progress line within 60 s: " + err.text(1)
    helpers = descendants(proc.pid)
    assert proc.poll() is None and len(helpers) >= 3, "the build ended before it could be interrupted"
    return proc, helpers, err


def gone_within(pids: set[int], seconds: float) -> set[int]:
    deadline = time.monotonic() + seconds
    while alive(pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = alive(pids)
    for pid in left:  # never leave them behind, whatever the assertion says
        os.kill(pid, signal.SIGKILL)
    return left


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")


@needs_proc
def test_kill_9_of_index_leaves_no_process_behind(tmp_path):
    proc, helpers, _ = started_indexing(tmp_path)
    proc.kill()
    proc.wait(timeout=10)
    assert gone_within(helpers, 15) == set()


@needs_proc
def test_ctrl_c_stops_index_cleanly_leaving_no_process(tmp_path):
    proc, helpers, err = started_indexing(tmp_path)
    os.killpg(proc.pid, signal.SIGINT)  # a terminal sends it to the whole foreground group
    code = proc.wait(timeout=60)
    out, log = proc.stdout.read(), err.text()
    assert "index: " not in out, "the build finished: the interrupt came too late to test anything"
    assert code == 130, log[-2000:]
    assert "Traceback" not in log, log[-2000:]
    assert gone_within(helpers, 15) == set()


def test_indexing_with_worker_processes_reports_no_leaked_semaphores(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(SITE, docs)
    proc = docs_mcp("index", "--source", str(docs), "--workers", "2", cache=tmp_path / "cache")
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "leaked" not in err and "resource_tracker" not in err, err


def test_a_run_that_cannot_write_says_so_and_is_not_a_success(tmp_path):
    from docs_mcp.cli.report import verdict
    from docs_mcp.crawl.indexer import Indexer
    from docs_mcp.store.sqlite.store import SiteIndex

    docs = many_pages(tmp_path / "docs", 5)
    app = app_for(tmp_path / "cache", f"docs={docs}")
    impatient = SiteIndex(app.index.path, busy_ms=20, retries=2)
    holder = sqlite3.connect(app.index.path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock, and keeps it
    try:
        indexer = Indexer(app.sources, app.settings, app.fetcher, impatient, workers=1)
        [report] = asyncio.run(indexer.run())
    finally:
        holder.execute("ROLLBACK")
    assert report.unwritten == 5 and report.pages == 0
    assert "cannot use the site index" in report.errors[0] and "database is locked" in report.errors[0]
    # So `index` exits 1, and says why.
    assert "5 pages could not be stored in the index: cannot use the site index" in verdict(report)


def test_a_reader_sees_every_later_write_of_processes_that_come_and_go(tmp_path):
    """A server's readers on threads of their own (each opening a connection) keep seeing what writer
    processes that start and exit store: a reader's connection used to drop the process's SQLite locks, so
    the next writer to exit took itself for the last user, deleted the WAL and -shm, and the server's readers
    stayed on the state before it (a crawl's 'unfinished' outcome and every later write unseen)."""
    from docs_mcp.store.sqlite.store import SiteIndex

    path = tmp_path / "index.sqlite"
    SiteIndex(path).close()
    reader = SiteIndex(path)
    write = (
        "import sys, pathlib; from docs_mcp.store.sqlite.store import SiteIndex as S; "
        "S(pathlib.Path(sys.argv[1])).set_meta('k', sys.argv[2])"
    )
    try:
        for n in range(3):
            for _ in range(2):  # a new thread: a new read connection, opened while the others hold locks
                t = threading.Thread(target=reader.meta, args=("k",))
                t.start()
                t.join()
            assert (
                subprocess.run([sys.executable, "-c", write, str(path), f"v{n}"], timeout=60).returncode == 0
            )
            assert reader.meta("k") == f"v{n}", n
    finally:
        reader.close()
