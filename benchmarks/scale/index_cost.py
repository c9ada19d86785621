"""What a fresh build costs, version against version: CPU seconds of every process of the build, peak RSS, index
size (issue 42: "CPU seconds and peak RSS within 5% of 0.4.11's, the index ≤ 0.45× the HTML").

Each configuration (`label:SRC`, a source tree) runs `docslice index` over the same served folder into a new
cache dir, the configurations taking turns round after round (A B A B), so a busy spell of the machine hits
them all. CPU seconds are the build's processes' own (`/proc` sampled every 50 ms, as index_scale.py does: the
indexing process, its forkserver and every parsing worker), with `getrusage`'s children figure beside them (the
processes waited for; a forkserver's workers are not, so it can be lower). Peak RSS is the tree's summed RSS
(PSS in brackets). Prints each build's figures with the load at its start and end, then each configuration's
medians and their ratio to the first configuration's.

    nice -n 19 python benchmarks/scale/index_cost.py --docs /usr/share/doc/openjdk-17-doc/api \\
        --config 0.4.11:../wt-0411/src --config main:src --rounds 2
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import docs_server
from index_scale import html_bytes, run_index

#: The figures compared, each with its ratio to the first configuration's median.
FIGURES = ("cpu_s", "main_cpu_s", "rss_mb", "index_mb")


def load() -> str:
    """The 1-minute load average, as every figure's neighbour."""
    return f"{os.getloadavg()[0]:.1f}"


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def code_of(src: Path) -> Path:
    """The docs_mcp a build with `src` runs (PYTHONPATH as run_index sets it): the installed one wins when
    `src` holds none, and a comparison of one version with itself would pass for two."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(src), os.environ.get("PYTHONPATH")])),
    }
    probe = [sys.executable, "-c", "import docs_mcp; print(docs_mcp.__file__)"]
    return Path(subprocess.run(probe, env=env, capture_output=True, text=True, check=True).stdout.strip())


def build(root: str, docs: Path, src: Path, cache: Path, workers: int | None) -> dict:
    """One fresh build of the served folder by the code in `src`: its costs and its index's size."""
    shutil.rmtree(cache, ignore_errors=True)
    before_load, before_cpu = load(), children_cpu()
    seconds, tree = run_index(root, cache, workers, src=src)
    rusage = children_cpu() - before_cpu
    index = cache / "index.sqlite"
    db = sqlite3.connect(index)
    try:
        html, pages = html_bytes(db, docs), db.execute("SELECT count(*) FROM pages").fetchone()[0]
    finally:
        db.close()
    return {
        "pages": pages,
        "seconds": seconds,
        "cpu_s": sum(tree.cpu.values()),
        "main_cpu_s": tree.cpu.get(tree.root_pid, 0.0),
        "rusage_cpu_s": rusage,
        "rss_mb": tree.rss_kb / 1024,
        "pss_mb": tree.pss_kb / 1024,
        "index_mb": index.stat().st_size / 1e6,
        "html_mb": html / 1e6,
        "load": f"{before_load} → {load()}",
    }


def summary(runs: dict[str, list[dict]]) -> list[str]:
    """Each configuration's medians, and their ratio to the first configuration's."""
    base = None
    lines = []
    for label, builds in runs.items():
        med = {f: statistics.median(b[f] for b in builds) for f in FIGURES}
        base = base or med
        ratios = ", ".join(f"{f} {med[f] / base[f]:.3f}×" for f in FIGURES if base[f])
        ratio = med["index_mb"] / statistics.median(b["html_mb"] for b in builds)
        lines.append(
            f"{label}: median of {len(builds)}: CPU {med['cpu_s']:.1f} s in all ({med['main_cpu_s']:.1f} s "
            f"indexing process), peak RSS {med['rss_mb']:.0f} MB, index {med['index_mb']:.1f} MB "
            f"({ratio:.3f}× the HTML); to {next(iter(runs))}: {ratios}"
        )
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=Path, required=True, help="the docs folder (served on 127.0.0.1)")
    ap.add_argument("--config", action="append", required=True, help="LABEL:SRC, a source tree (repeat)")
    ap.add_argument("--rounds", type=int, default=2, help="builds per configuration, interleaved")
    ap.add_argument("--workers", type=int, default=None, help="parsing processes (default: all cores)")
    ap.add_argument("--keep", type=Path, default=None, help="keep each configuration's last index under here")
    ap.add_argument("--json", type=Path, default=None, help="write every build's figures here")
    ns = ap.parse_args()
    configs = [(label, Path(src).resolve()) for label, src in (c.split(":", 1) for c in ns.config)]
    for label, src in configs:
        if not code_of(src).is_relative_to(src):
            raise SystemExit(f"{label}: ran {code_of(src)}, not the code under {src}")
    work = ns.keep or Path(tempfile.mkdtemp(prefix="docslice-cost-"))
    runs: dict[str, list[dict]] = {label: [] for label, _ in configs}
    with docs_server(ns.docs) as root:
        for round_ in range(ns.rounds):
            for label, src in configs:
                out = build(root, ns.docs, src, work / label, ns.workers)
                runs[label].append(out)
                print(
                    f"round {round_ + 1} {label}: {out['pages']} pages, CPU {out['cpu_s']:.1f} s in all "
                    f"({out['main_cpu_s']:.1f} indexing process; rusage {out['rusage_cpu_s']:.1f}), peak RSS "
                    f"{out['rss_mb']:.0f} MB (PSS {out['pss_mb']:.0f}), index {out['index_mb']:.1f} MB of "
                    f"{out['html_mb']:.1f} MB HTML, {out['seconds']:.0f} s wall, load {out['load']}",
                    flush=True,
                )
                if ns.json:
                    ns.json.write_text(json.dumps(runs, indent=1, ensure_ascii=False), encoding="utf-8")
    print("\n".join(summary(runs)))
    if not ns.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
