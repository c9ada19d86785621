"""The indexing workers' CPU per page: `crawl.digest.digest(raw, key, embed=False)` over every Nth page of a
docs folder, code versions side by side (ABAB), with where the time goes and what each version yields.

Each configuration (`label:SRC`, a source tree) runs in a process of its own: it reads the sampled files first
(not timed), digests the first WARM_PAGES to warm up, then digests them all, timed with `time.process_time`. The
configurations take turns round after round, so a busy spell of the machine hits them all. Pages are addressed
as an HTTP source's (`--root`, never fetched) as `index_scale.py`'s served folder is, so the links' targets
are resolved as in a real build. Per run: CPU seconds, pages, MB of HTML and the load; then each version's
median and its ratio to the first configuration's. `--profile` adds one more pass per version with a timer
around each stage's function: its CPU seconds and its share of `digest`'s. `--dump DIR`, instead of timing,
writes each version's output per page (every row field, links, link words, keyword rows, section digests) to
DIR/LABEL.jsonl and prints the pages where a version's differs from the first's, and in which fields.
`--instructions N`, instead of timing, counts the instructions (valgrind's callgrind `Ir`, the same whatever
else the machine runs) of digesting the first N sampled pages, less those of a run that reads them and digests
none (imports, files); each tree's modules are compiled by a run outside valgrind first.

    nice -n 19 python benchmarks/scale/digest_cpu.py --docs /usr/share/doc/openjdk-17-doc/api --every 5 \
        --config 0.4.11:../wt-0411cpu/src --config main:src --rounds 3 --profile
    python benchmarks/scale/digest_cpu.py --docs /usr/share/doc/python3.11/html --every 2 \
        --config before:/tmp/before/src --config after:src --dump /tmp/digests
    python benchmarks/scale/digest_cpu.py --docs /usr/share/doc/openjdk-17-doc/api --every 100 \
        --config 0.4.11:../wt-0411/src --config main:src --instructions 60
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

#: The digest's stages as profiled: function names of docs_mcp (cumulative time; nested ones overlap).
STAGES = (
    "parse_html",
    "keyword_links",
    "page_anchors",
    "link_words",
    "page_links",
    "find_main",
    "navigation_page",
    "build_document",
    "page_title",
    "linked_fragments",
    "strip_noise",
    "hidden_elements",
    "node_navigation",
    "split_html",
    "prepare_page",
)


#: Pages digested before the timed pass.
WARM_PAGES = 50


def sample(docs: Path, every: int) -> list[str]:
    """Every `every`th HTML file under `docs` (relative paths, sorted: the same pages for every version)."""
    files = sorted(str(p.relative_to(docs)) for p in docs.rglob("*.html") if p.is_file())
    return files[::every]


def child(ns: argparse.Namespace) -> None:
    """One configuration's run, in its own process (its source tree first on sys.path): prints its figures."""
    import time

    from docs_mcp.crawl.digest import digest
    from docs_mcp.fetch.fetching import RawPage
    from docs_mcp.fetch.sources import Location, parse_source

    source = parse_source(ns.root)
    pages = []
    for rel in sample(ns.docs, ns.every):
        text = (ns.docs / rel).read_bytes().decode("utf-8", "replace")
        pages.append(RawPage(Location(source, ns.root + rel), text, "html", fetched_at=0.0))
    load = os.getloadavg()[0]
    if ns.first is not None:  # the work whose instructions are counted, and nothing else
        for raw in pages[: ns.first]:
            digest(raw, raw.location.key, embed=False)
        return
    if ns.dump:
        _dump(ns.dump, [(raw.location.key, digest(raw, raw.location.key, embed=False)) for raw in pages])
        return print(json.dumps({"pages": len(pages)}))
    for raw in pages[:WARM_PAGES]:  # warm: imports, first memos; the timed pass fills them as a build does
        digest(raw, raw.location.key, embed=False)
    t0 = time.process_time()
    for raw in pages:
        digest(raw, raw.location.key, embed=False)
    cpu = time.process_time() - t0
    out = {"cpu_s": cpu, "pages": len(pages), "mb": sum(len(r.text) for r in pages) / 1e6}
    if ns.profile:
        out["stages"] = _stages(pages, digest)
    out["load"] = f"{load:.1f}-{os.getloadavg()[0]:.1f}"
    print(json.dumps(out))


def _stages(pages: list, digest) -> dict[str, float]:
    """Each stage's inclusive CPU seconds over all pages ('digest': the whole), from timers put around the
    stage functions wherever a docs_mcp module holds them (cProfile's own cost, ~5x here, skews shares)."""
    import sys
    import time

    totals: dict[str, float] = dict.fromkeys(("digest", *STAGES), 0.0)
    clock = time.process_time

    def timed(name, fn):
        def wrapper(*args, **kwargs):
            t0 = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                totals[name] += clock() - t0

        return wrapper

    wrapped: dict[int, object] = {}
    for module in [m for n, m in sys.modules.items() if n.startswith("docs_mcp.")]:
        for name in STAGES:
            fn = getattr(module, name, None)
            if callable(fn) and getattr(fn, "__module__", "").startswith("docs_mcp."):
                setattr(module, name, wrapped.setdefault(id(fn), timed(name, fn)))
    whole = timed("digest", digest)
    for raw in pages:
        whole(raw, raw.location.key, embed=False)
    return {k: v for k, v in totals.items() if v}


def _dump(path: Path, digests: list) -> None:
    """Each page's digest as one JSON line: every row field, compressed ones unpacked."""
    import dataclasses
    import zlib

    def plain(value):
        if isinstance(value, bytes):
            try:
                return zlib.decompress(value).decode("utf-8", "replace")
            except zlib.error:
                return value.hex()
        if isinstance(value, (tuple, list)):
            return [plain(v) for v in value]
        return value

    with path.open("w") as f:
        for key, d in digests:
            row = {k: plain(v) for k, v in dataclasses.asdict(d.page).items()}
            row.update(links=d.links, navigation=d.navigation, vector_texts=plain(d.vector_texts))
            f.write(json.dumps({"url": key, **row}, sort_keys=True) + "\n")


def compare(configs: list[str], folder: Path) -> None:
    """The pages whose dumped digest differs from the first configuration's, and the fields that differ."""
    labels = [c.split(":", 1)[0] for c in configs]
    base = [json.loads(line) for line in (folder / f"{labels[0]}.jsonl").open()]
    for label in labels[1:]:
        other = [json.loads(line) for line in (folder / f"{label}.jsonl").open()]
        differ = [
            (a["url"], sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k)))
            for a, b in zip(base, other, strict=True)
        ]
        differ = [(url, fields) for url, fields in differ if fields]
        print(f"{label} against {labels[0]}: {len(differ)} of {len(base)} pages differ")
        for url, fields in differ[:20]:
            print(f"  {url}: {', '.join(fields)}")


def run(config: str, ns: argparse.Namespace, profile: bool, dump: Path | None) -> dict:
    """One run of one configuration (`label:SRC`) in its own process: its figures."""
    label, src = config.split(":", 1)
    cmd = [sys.executable, __file__, "--child", "--docs", str(ns.docs), "--every", str(ns.every)]
    cmd += ["--root", ns.root] + (["--profile"] if profile else [])
    cmd += ["--dump", str(dump / f"{label}.jsonl")] if dump else []
    # One hash seed for all: a row built from a set (the page's terms) is then byte for byte comparable.
    env = {**os.environ, "PYTHONPATH": str(Path(src).resolve()), "PYTHONHASHSEED": "0"}
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{config}: the run failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def instructions(config: str, ns: argparse.Namespace) -> dict:
    """Instructions (millions) of the configuration's digests of the first `ns.instructions` pages: a run
    that digests them less one that digests none, each under valgrind's callgrind."""
    src = config.split(":", 1)[1]
    env = {**os.environ, "PYTHONPATH": str(Path(src).resolve()), "PYTHONHASHSEED": "0"}
    # .pyc written and read: a tree compiled at every import (PYTHONDONTWRITEBYTECODE, a fresh copy) costs
    # ~330 million instructions more, and the objects it leaves move the digests' own count by ~2%.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cmd = [sys.executable, __file__, "--child", "--docs", str(ns.docs), "--every", str(ns.every)]
    cmd += ["--root", ns.root]
    subprocess.run([*cmd, "--first", "1"], env=env, check=True)  # its .pyc written, not counted below
    counts = []
    for first in (0, ns.instructions):
        grind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
        proc = subprocess.run([*grind, *cmd, "--first", str(first)], env=env, capture_output=True, text=True)
        found = re.search(r"Collected : (\d+)", proc.stderr)
        if proc.returncode != 0 or found is None:
            raise SystemExit(f"{config}: valgrind failed:\n{proc.stderr[-2000:]}")
        counts.append(int(found.group(1)) / 1e6)
    return {"base": counts[0], "digests": counts[1] - counts[0]}


def report(configs: list[str], runs: dict[str, list[dict]]) -> None:
    """Each version's median CPU over its runs and the ratio to the first; the profiled stages side by side."""
    base = statistics.median(r["cpu_s"] for r in runs[configs[0]])
    print("\nversion      CPU s per run (load)                        median   ratio")
    for config in configs:
        cpus = [r["cpu_s"] for r in runs[config]]
        each = ", ".join(f"{r['cpu_s']:.2f} ({r['load']})" for r in runs[config])
        med = statistics.median(cpus)
        print(f"{config.split(':')[0]:<12} {each:<44} {med:7.2f}   {med / base:.3f}x")
    profiled = {c: next((r["stages"] for r in runs[c] if "stages" in r), None) for c in configs}
    if not all(profiled.values()):
        return
    print("\nstages, inclusive CPU s (share of digest; nested stages overlap)")
    print(f"{'stage':<18}" + "".join(f"{c.split(':')[0]:>22}" for c in configs))
    for stage in ("digest", *STAGES):
        cells = []
        for c in configs:
            st = profiled[c]
            cells.append(f"{st[stage]:9.2f} ({100 * st[stage] / st['digest']:5.1f}%)" if stage in st else "-")
        print(f"{stage:<18}" + "".join(f"{cell:>22}" for cell in cells))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=Path, required=True, help="a folder of HTML documentation")
    ap.add_argument("--every", type=int, default=5, help="digest every Nth file, in sorted order (default 5)")
    ap.add_argument("--config", action="append", default=[], help="LABEL:SRC, a source tree (repeatable)")
    ap.add_argument("--rounds", type=int, default=2, help="runs of each configuration, taking turns")
    ap.add_argument(
        "--root", default="http://127.0.0.1:8741/", help="the HTTP root the pages are addressed as"
    )
    ap.add_argument("--profile", action="store_true", help="one more pass per version, each stage timed")
    ap.add_argument(
        "--dump", type=Path, help="instead of timing: DIR/LABEL.jsonl, each page's digest, compared"
    )
    ap.add_argument(
        "--instructions", type=int, metavar="N", help="instead of timing: callgrind's count for N digests"
    )
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--first", type=int, help=argparse.SUPPRESS)
    ns = ap.parse_args()
    if ns.child:
        return child(ns)
    configs = ns.config or ["main:" + str(Path(__file__).resolve().parents[2] / "src")]
    print(
        f"{len(sample(ns.docs, ns.every))} pages of {ns.docs} (every {ns.every}), load {os.getloadavg()[0]:.1f}"
    )
    if ns.dump:
        ns.dump.mkdir(parents=True, exist_ok=True)
        for config in configs:
            run(config, ns, False, ns.dump)
        return compare(configs, ns.dump)
    if ns.instructions:
        counted = {c: instructions(c, ns) for c in configs}
        first = counted[configs[0]]["digests"]
        print(f"\nversion      instructions (M): {ns.instructions} digests   imports, files   ratio")
        for c, n in counted.items():
            print(
                f"{c.split(':')[0]:<12} {n['digests']:>28,.1f} {n['base']:>16,.1f}   {n['digests'] / first:.3f}x"
            )
        return None
    runs: dict[str, list[dict]] = {c: [] for c in configs}
    for i in range(ns.rounds):
        for config in configs:
            out = run(config, ns, ns.profile and i == ns.rounds - 1, None)
            runs[config].append(out)
            print(
                f"round {i + 1} {config}: {out['cpu_s']:.2f} CPU s, {out['pages']} pages, {out['mb']:.1f} MB, load {out['load']}"
            )
    report(configs, runs)


if __name__ == "__main__":
    main()
