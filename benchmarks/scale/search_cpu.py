"""search_docs's CPU per call on a kept index, where it goes, and the top-10 it returns (to compare two versions).

Runs in process, on one thread (cProfile sees one thread): `SiteSearch.search_with_status` and the answer's
text, as the server's search_docs does, for every query of the question sets given (both forms, `query` and
`terse`). Prints CPU ms per call (process time over the passes), the top functions by own time, and writes
each query's top-10 addresses as JSON (`--top10 FILE`), so two versions' rankings can be compared with --compare.

    python -m docs_mcp index --source /usr/share/doc/python3.11/html --cache-dir /tmp/py     # once
    PYTHONPATH=src nice -n 10 python benchmarks/scale/search_cpu.py --source /usr/share/doc/python3.11/html \
        --cache-dir /tmp/py --passes 3 --profile --top10 /tmp/new.json
    python benchmarks/scale/search_cpu.py --compare /tmp/old.json /tmp/new.json
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import sys
import time
from pathlib import Path

# benchmarks/: common.py, question_files.py
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import question_files
from common import DEFAULT_QUESTIONS


def queries(paths: list[str]) -> list[str]:
    """Every question's full and terse form, in order, each once."""
    seen: dict[str, None] = {}
    for p in paths:
        _, qs = question_files.read(Path(p))
        for q in qs:
            for form in (q.get("query"), q.get("terse")):
                if form:
                    seen.setdefault(form, None)
    return list(seen)


def _top10(search, query: str) -> list[str]:
    """The first 10 hits' addresses and anchors as search_docs gives them (through its result cache, if on)."""
    hits, *_ = search.search_with_status(query, 10, None)
    return [h.url + (f"#{h.section_id}" if h.section_id else "") for h in hits]


def compare(old: str, new: str) -> int:
    """Which queries' top-10 differ between two --top10 files; exit status 1 when any does."""
    a, b = (json.loads(Path(p).read_text(encoding="utf-8")) for p in (old, new))
    moved = [q for q in a if a[q] != b.get(q)]
    print(f"{len(a) - len(moved)} of {len(a)} queries: top-10 identical")
    for q in moved:
        print(f"  moved: {q!r}\n    old {a[q]}\n    new {b.get(q)}")
    return 1 if moved else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source", help="the docs root the index was built from")
    ap.add_argument("--cache-dir", help="SQLite index folder")
    ap.add_argument("--index-url", help="PostgreSQL index")
    sets = [str(p) for p in [*question_files.set_files(), DEFAULT_QUESTIONS] if p.is_file()]
    ap.add_argument("--sets", nargs="*", default=sets, help="question set files (default: all 17)")
    ap.add_argument("--passes", type=int, default=3, help="times each query is asked (agents repeat them)")
    ap.add_argument("--profile", action="store_true", help="print the top functions by own time")
    ap.add_argument("--every", type=int, default=1, help="time every Nth query only")
    ap.add_argument(
        "--cached", action="store_true", help="keep the result cache on (default: every call ranks)"
    )
    ap.add_argument("--top10", help="write each query's top-10 addresses (JSON)")
    ap.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"), help="compare two --top10 files")
    args = ap.parse_args()
    if args.compare:
        return compare(*args.compare)
    from docs_mcp.cli.app import App
    from docs_mcp.cli.arguments import parser
    from docs_mcp.tools.search_answer import answer

    where = ["--index-url", args.index_url] if args.index_url else ["--cache-dir", args.cache_dir]
    app = App(parser().parse_args(["serve", "--source", args.source, "--no-index", *where]))
    search = app.search
    if not args.cached and hasattr(
        search, "results"
    ):  # the cost of a question not asked before (a repeat costs a lookup)
        from docs_mcp.search.site.results import ResultCache

        search.results = ResultCache(0)
    qs = queries(args.sets)
    top10 = {q: _top10(search, q) for q in qs} if args.top10 else {}
    # Own-thread CPU, not wall time: on a shared machine a wall-clock profile mostly measures waiting.
    profile = cProfile.Profile(time.thread_time) if args.profile else None
    timed = qs[:: max(1, args.every)]
    t0, w0 = time.process_time(), time.perf_counter()
    if profile:
        profile.enable()
    for _ in range(args.passes):
        for q in timed:
            hits, terms, status, searched = search.search_with_status(q, 10, None)
            answer(q, hits, status, False, None, 20_000, searched, terms)
    if profile:
        profile.disable()
    calls = len(timed) * args.passes
    cpu, wall = time.process_time() - t0, time.perf_counter() - w0
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"{calls} search_docs calls ({len(timed)} queries x {args.passes}): CPU {cpu * 1000 / calls:.1f} ms/call, "
        f"wall {wall * 1000 / calls:.1f} ms/call{' (under cProfile)' if profile else ''}; load {load}"
    )
    if profile:
        stats = pstats.Stats(profile)
        rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:12]  # own time
        print("own time per call (ms) · cumulative per call (ms) · function")
        for (file, line, name), (_, ncalls, own, cum, _) in rows:
            print(
                f"  {own * 1000 / calls:7.2f} · {cum * 1000 / calls:7.2f} · {Path(file).name}:{line} {name} ({ncalls} calls)"
            )
        print("cumulative per call (ms), docs_mcp functions")
        mine = [kv for kv in stats.stats.items() if "docs_mcp" in kv[0][0]]
        for (file, line, name), (_, _, _, cum, _) in sorted(mine, key=lambda kv: -kv[1][3])[:20]:
            print(f"  {cum * 1000 / calls:7.2f} · {Path(file).name}:{line} {name}")
    if args.top10:
        Path(args.top10).write_text(json.dumps(top10, indent=1), encoding="utf-8")
    app.index.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
