"""The findability audit over many documentation sites (issue 42): index each site of audit_sites.json as a
folder source, run `docslice audit --json` on it, keep each site's JSON, and print a per-site table and the
pooled figures of the tuning and validation halves.

    python benchmarks/quality/audit_sites.py                 # every site whose folder is installed
    python benchmarks/quality/audit_sites.py --sites sdl2,zsh --pages 50
    python benchmarks/quality/audit_sites.py --packages      # the Debian packages to install
    python benchmarks/quality/audit_sites.py --report OUT    # the tables again, from the JSON kept in OUT

Each site gets its own cache folder under --work (kept: a second run audits the index already built; --fresh
builds it again). Times are wall seconds on this machine, with the load before and after each site.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SITES = HERE / "audit_sites.json"
SRC = HERE.parents[1] / "src"
KINDS = ("title", "heading", "name", "link", "paraphrase")
#: Pages sampled per site here: 35 sites within an hour on a shared 2-core machine (the command samples
#: settings.AUDIT_PAGES by default).
PAGES = 100


def load_sites(names: str | None, large: bool) -> list[dict[str, Any]]:
    sites = [s for s in json.loads(SITES.read_text())["sites"] if large or names or not s.get("large")]
    if names:
        wanted = names.split(",")
        unknown = set(wanted) - {s["name"] for s in sites}
        if unknown:
            raise SystemExit(f"error: no site named {', '.join(sorted(unknown))} in {SITES}")
        sites = [s for s in sites if s["name"] in wanted]
    return sites


def load() -> float:
    return os.getloadavg()[0]


def docslice(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.run([sys.executable, "-m", "docs_mcp", *args], capture_output=True, text=True, env=env)


def run_site(site: dict[str, Any], work: Path, out: Path, pages: int, fresh: bool) -> dict[str, Any] | None:
    """Index the site (unless its index is there), audit it, keep its JSON; None when its folder is missing."""
    if not Path(site["path"]).is_dir() and site.get("make"):
        subprocess.run(site["make"], shell=True, check=False)  # a site generated from a package's data
    if not Path(site["path"]).is_dir():
        print(f"{site['name']}: {site['path']} missing (apt-get install {site['package']})", file=sys.stderr)
        return None
    cache = work / site["name"]
    source = ["--source", f"{site['name']}={site['path']}", "--cache-dir", str(cache)]
    before, started = load(), time.monotonic()
    if fresh and cache.is_dir():
        shutil.rmtree(cache)
    built = not (cache / "index.sqlite").is_file()
    # Always run: a build cut short is finished, a complete one is only checked against the folder.
    done = docslice("index", *source)
    if done.returncode:
        print(f"{site['name']}: index failed: {done.stderr.strip()[-300:]}", file=sys.stderr)
    indexed = time.monotonic() - started
    done = docslice("audit", "--json", "--pages", str(pages), *source)
    if done.returncode:
        print(f"{site['name']}: audit failed: {done.stderr.strip()[-300:]}", file=sys.stderr)
        return None
    data = json.loads(done.stdout)
    data.update(
        info={k: site[k] for k in ("name", "generator", "path", "package", "split")},
        index_seconds=round(indexed, 1),
        index_built=built,
        load=[round(before, 2), round(load(), 2)],
    )
    (out / f"{site['name']}.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return data


def pct(x: float) -> str:
    return f"{100 * x:.0f}"


def rates(r: dict[str, Any]) -> str:
    """success@1 / @3 in percent, or a dash when the kind had no known item."""
    return f"{pct(r['at1'])} / {pct(r['at3'])}" if r["items"] else "–"


def thieves_cell(data: dict[str, Any], count: int = 2) -> str:
    items = data["site"]["kinds"]["all"]["items"]
    shown = [f"{t['url']} ({t['above']}/{items})" for t in data["site"]["thieves"][:count]]
    return ", ".join(shown).replace("|", "\\|") or "none"


def site_row(data: dict[str, Any]) -> str:
    """One site's line of the table: sizes, success@1 / @3 per kind (%), in-page, the top thieves, times."""
    kinds, inside, info = data["site"]["kinds"], data["in_page"]["kinds"], data["info"]
    per_kind = " | ".join(rates(kinds[k]) for k in KINDS)
    return (
        f"| {info['name']} | {info['generator']} | {info['split']} | {data['pages_listed']:,} | "
        f"{data['pages_sampled']} | {kinds['all']['items']} | {per_kind} | "
        f"{rates(kinds['all'])} | "
        f"{rates(inside['all'])} | {thieves_cell(data)} | "
        f"{data['index_seconds']:.0f} + {data['seconds']:.0f} | {data['load'][0]:.1f}–{data['load'][1]:.1f} |"
    )


HEADER = (
    "| site | generator | split | pages | sampled | known items | "
    + " | ".join(f"{k} @1 / @3" for k in KINDS)
    + " | all @1 / @3 | in-page @1 / @3 | top thieves (times above / known items) | index + audit s | load |"
)


def pooled(results: list[dict[str, Any]], part: str) -> dict[str, float | int]:
    """Known items of every site pooled (each item counts once): success@1, @3, and the sites' count."""
    items = at1 = at3 = 0.0
    for data in results:
        r = data[part]["kinds"]["all"]
        items += r["items"]
        at1 += r["at1"] * r["items"]
        at3 += r["at3"] * r["items"]
    return {
        "sites": len(results),
        "items": int(items),
        "at1": at1 / items if items else 0.0,
        "at3": at3 / items if items else 0.0,
    }


def worst_share(results: list[dict[str, Any]]) -> tuple[float, str]:
    """The largest share of its site's known items one page stood above, and where."""
    best = (0.0, "none")
    for data in results:
        for t in data["site"]["thieves"][:1]:
            best = max(best, (t["share"], f"{data['info']['name']}: {t['url']}"))
    return best


def report(results: list[dict[str, Any]]) -> str:
    lines = [HEADER, "|" + "---|" * (HEADER.count("|") - 1)]
    lines += [site_row(d) for d in results]
    lines.append("")
    for split in ("tuning", "validation"):
        part = [d for d in results if d["info"]["split"] == split]
        site, inside = pooled(part, "site"), pooled(part, "in_page")
        share, where = worst_share(part)
        lines.append(
            f"{split}: {site['sites']} sites, {site['items']:,} known items: site search success@1 "
            f"{site['at1']:.3f}, @3 {site['at3']:.3f}; in-page ({inside['items']:,} sections) @1 "
            f"{inside['at1']:.3f}, @3 {inside['at3']:.3f}; worst thief {100 * share:.1f}% of its site's items ({where})"
        )
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sites", help="comma-separated site names (default: all)")
    p.add_argument("--pages", type=int, default=PAGES, help=f"pages sampled per site (default {PAGES})")
    p.add_argument("--work", type=Path, default=Path("/tmp/docslice-audit"), help="cache folders, one a site")
    p.add_argument(
        "--out", type=Path, default=None, help="where each site's JSON goes (default: WORK/results)"
    )
    p.add_argument("--fresh", action="store_true", help="build every index again")
    p.add_argument("--large", action="store_true", help="the sites marked large too")
    p.add_argument("--packages", action="store_true", help="print the Debian packages the sites need")
    p.add_argument("--report", type=Path, help="print the tables from the JSON already in this folder")
    args = p.parse_args()
    sites = load_sites(args.sites, args.large)
    if args.packages:
        print(" ".join(sorted({pkg for s in sites for pkg in s["package"].split()})))
        return
    if args.report:
        wanted = [args.report / f"{s['name']}.json" for s in sites]
        print(report([json.loads(f.read_text()) for f in wanted if f.is_file()]))
        return
    out = args.out or args.work / "results"
    out.mkdir(parents=True, exist_ok=True)
    results = []
    for site in sites:
        data = run_site(site, args.work, out, args.pages, args.fresh)
        if data is not None:
            results.append(data)
            print(site_row(data), flush=True)
    print()
    print(report(results))


if __name__ == "__main__":
    main()
