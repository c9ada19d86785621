"""What an SQLite index's bytes are: per table (its indexes and FTS5 shadow tables beside it), its largest
columns, its ratio to the HTML behind it, and the top-10 of question sets searched on it (to tell whether a
smaller index answers the same).

Usage: python benchmarks/scale/index_size.py --cache-dir DIR --docs DIR [--questions FILE ...]
    [--dump FILE] [--compare FILE]
`--cache-dir` holds an `index.sqlite` built from the folder `--docs` (`docslice index --source DIR
--cache-dir …`); the HTML is the files behind its pages. `--questions` searches each question (both forms)
with `search_docs` on that index; `--dump` writes the answers, `--compare` says which queries' top-10 differ
from an earlier dump. The load (`uptime`) is printed first and last.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# benchmarks/: common.py, question_files.py and the other folders
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from common import load_questions
from index_scale import html_bytes, searches, table_sizes

#: Columns whose bytes are summed (table, column): the stored texts, blobs and vectors.
COLUMNS = (
    ("page_data", "doc"),
    ("page_data", "links"),
    ("page_data", "texts"),
    ("page_data", "words"),
    ("sections", "text"),
    ("sections", "title"),
    ("sections", "path"),
    ("sections", "names"),
    ("page_vectors", "vecs"),
    ("link_words", "pairs"),
    ("section_digests", "digest"),
    ("inbound_words", "target"),
)
MB = 2**20
#: A hit's address: the indented line under its numbered title.
_HIT = re.compile(r"^\d+\. [^\n]*\n\s+(\S+)", re.M)
#: What differs between two builds of the same pages: when the index was refreshed, when a page was fetched.
_WHEN = re.compile(r"refreshed [^\n]*| · fetched [^\n]*")


def owners(db: sqlite3.Connection) -> dict[str, str]:
    """Each b-tree's table: an index's table, an FTS5 shadow table's virtual table, a table its own."""
    rows = db.execute("SELECT name, tbl_name FROM sqlite_schema WHERE type IN ('table', 'index')")
    out = dict(rows.fetchall())
    for name in list(out):
        for suffix in ("_data", "_idx", "_content", "_docsize", "_config"):
            if name.endswith(suffix) and name.removesuffix(suffix) in out:
                out[name] = name.removesuffix(suffix)
    return out


def by_table(db: sqlite3.Connection) -> list[tuple[str, int, str]]:
    """(table, bytes with its indexes and shadow tables, its b-trees over 64 kB), largest first."""
    tables: dict[str, list[tuple[str, int]]] = {}
    own = owners(db)
    for name, size in table_sizes(db):
        tables.setdefault(own.get(name, name), []).append((name, size))
    rows = [
        (t, sum(s for _, s in parts), ", ".join(f"{n} {s / MB:.1f}" for n, s in parts if s >= 65536))
        for t, parts in tables.items()
    ]
    return sorted(rows, key=lambda r: -r[1])


def columns(db: sqlite3.Connection) -> list[tuple[str, int]]:
    """Bytes of the stored values of COLUMNS that the index has (payload only: no page or row overhead)."""
    return [
        (f"{t}.{c}", db.execute(f"SELECT coalesce(sum(length({c})), 0) FROM {t}").fetchone()[0])
        for t, c in COLUMNS
        if c in {row[1] for row in db.execute(f"PRAGMA table_info({t})")}
    ]


def html_size(db: sqlite3.Connection, docs: Path) -> int:
    """Bytes of the HTML files behind the indexed pages (a local folder's pages are keyed by their path)."""
    keys = [Path(k) for (k,) in db.execute("SELECT key FROM pages") if k.startswith("/")]
    return sum(k.stat().st_size for k in keys if k.is_file()) or html_bytes(db, docs)


def compare(answers: dict[str, str], path: Path) -> None:
    """Say how many queries' top-10 addresses, and whole answers (but when things were fetched), are those of
    an earlier dump; name the queries whose top-10 differ."""
    before = json.loads(path.read_text(encoding="utf-8"))
    asked = [q for q in answers if q in before]
    same = [q for q in asked if _HIT.findall(before[q]) == _HIT.findall(answers[q])]
    text = sum(_WHEN.sub("", before[q]) == _WHEN.sub("", answers[q]) for q in asked)
    print(f"top-10: {len(same)} of {len(asked)} queries as in {path.name}; whole answers: {text} the same")
    for q in asked:
        if q not in same:
            print(f"    differs: {q}: {_HIT.findall(before[q])[:5]} -> {_HIT.findall(answers[q])[:5]}")


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache-dir", type=Path, required=True, help="the folder holding index.sqlite")
    ap.add_argument("--docs", type=Path, required=True, help="the docs folder the index was built from")
    ap.add_argument(
        "--questions", type=Path, action="append", default=[], help="a question file (repeatable)"
    )
    ap.add_argument("--dump", type=Path, default=None, help="write each query's top-10 answer here (JSON)")
    ap.add_argument("--compare", type=Path, default=None, help="compare the answers with an earlier --dump")
    ns = ap.parse_args()
    print(f"load: {load()}", flush=True)
    path = ns.cache_dir / "index.sqlite"
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    total, html = path.stat().st_size, html_size(db, ns.docs.resolve())
    pages = db.execute("SELECT count(*), sum(listed) FROM pages").fetchone()
    print(
        f"{path}: {total / MB:.1f} MB for {html / MB:.1f} MB of HTML ({pages[0]:,} pages, {pages[1]:,} listed)"
    )
    print(f"ratio to the HTML: {total / max(html, 1):.3f}")
    for table, size, parts in by_table(db):
        if size >= 65536:
            print(f"  {table:<18} {size / MB:7.1f} MB  {size / max(html, 1):.3f}x  ({parts})")
    print("stored values (MB): " + ", ".join(f"{c} {n / MB:.1f}" for c, n in columns(db)))
    db.close()
    queries = [
        q for f in ns.questions for item in load_questions(f) for q in (item["query"], item.get("terse"))
    ]
    if queries:
        queries = list(dict.fromkeys(q for q in queries if q))
        _, answers = asyncio.run(searches(str(ns.docs.resolve()), ns.cache_dir, queries))
        if ns.dump:
            ns.dump.write_text(json.dumps(answers, indent=1, ensure_ascii=False), encoding="utf-8")
        if ns.compare:
            compare(answers, ns.compare)
    print(f"load: {load()}")


if __name__ == "__main__":
    main()
