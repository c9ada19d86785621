"""The cross-encoder of rerank.py on the findability audit's known items: success@1/@3 per query kind, before
and after re-ranking the site ranker's top candidates (issue 42 item 5).

Each site of audit_sites.json is read from an index that audit_sites.py built (`--work`, default
/tmp/docslice-audit/NAME), copied first to a folder of this run's own (nothing is written where the audit keeps
its indexes). The pages sampled and the known items asked are the audit's own (docs_mcp.audit).

    python benchmarks/quality/rerank_audit.py --sites flask,sdl2 --pages 30
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import audit_sites
import common as cm
import rerank


def known_items(search: Any, source: Any, pages: int) -> list[tuple[Any, str]]:
    """The audit's page-level known items of `pages` sampled pages, each with its right page as shown."""
    from docs_mcp.audit.queries import LINK_WORDS, PageFacts, page_items
    from docs_mcp.audit.run import _shown, sample
    from docs_mcp.store.interface import Scope

    with search.index.reading() as reads:
        listed = reads.listed_pages(Scope.of([source]))
    titles = Counter(title.strip() for _, title in listed)
    facts = []
    for key, seed in sample(search, source, [k for k, _ in listed], pages):
        doc = search.load_document(key)
        if doc is not None:
            facts.append(PageFacts.of(doc, key, seed))
    seen = Counter(x for f in facts for x in {*f.headings, *f.names, *f.sentences})
    common = {t for t, n in titles.items() if n > 1} | {x for x, n in seen.items() if n > 1}
    items = []
    for f in facts:
        with search.index.reading() as reads:
            inbound = reads.inbound_words(f.key, LINK_WORDS)
        right = _shown(search, f.key, source)
        items += [(item, right) for item in page_items(f, inbound, common)]
    return items


def item_ranks(
    search: Any, enc: rerank.CrossEncoder, item: Any, right: str, args: argparse.Namespace
) -> dict:
    """The right page's rank among the ranker's 10 (`base`) and in each re-ranked order of its top `--top`."""
    scope = search.scope()
    hits = [h for h in search.ranker.search(item.query, args.top, scope) if search.locate(h.url) is not None]
    urls = [search.sources.display_url(search.locate(h.url)) for h in hits]
    also = [{search.sources.display_url(o) for k in h.also if (o := search.locate(k))} for h in hits]

    def rank(order: list[int]) -> int | None:
        return next((r for r, i in enumerate(order[:10], 1) if right == urls[i] or right in also[i]), None)

    logits = enc.scores(item.query, [rerank.passage(search, h, item.query, args) for h in hits])
    ranks = {"base": rank(list(range(min(10, len(hits))))), "pool": rank(list(range(len(hits))))}
    for name, order in rerank.orders([h.score for h in hits], logits, args.weights).items():
        ranks[name] = rank(order)
    return {"kind": item.kind, **ranks}


async def audit_site(site: dict[str, Any], enc: rerank.CrossEncoder, args: argparse.Namespace) -> dict | None:
    """Every known item's ranks on one site, read from a copy of its audit index."""
    from docs_mcp.cli.app import App
    from docs_mcp.cli.arguments import parser

    built = args.work / site["name"] / "index.sqlite"
    if not built.is_file():
        print(f"{site['name']}: no index at {built} (run audit_sites.py first)", file=sys.stderr)
        return None
    with tempfile.TemporaryDirectory(prefix="docslice-rerank-audit-") as tmp:
        shutil.copy(built, Path(tmp) / "index.sqlite")
        argv = ["serve", "--source", f"{site['name']}={site['path']}", "--cache-dir", tmp, "--no-index"]
        app = App(parser().parse_args(argv))
        try:
            source = app.sources.sources[0]
            items = known_items(app.search, source, args.pages)
            rows = [item_ranks(app.search, enc, item, right, args) for item, right in items]
        finally:
            await app.tools.aclose()
            app.index.close()
    return {"name": site["name"], "split": site["split"], "ranks": rows}


def table(results: list[dict[str, Any]], times: dict[str, list[float]], args: argparse.Namespace) -> str:
    """success@1 / @3 per order, per site and pooled per split and query kind; the model's time per call."""
    keys = ["base", "pool"] + [f"w={w:g}" for w in args.weights]

    def cells(rows: list[dict[str, Any]]) -> str:
        def at(k: str, n: int) -> float:
            return sum(1 for r in rows if r[k] and r[k] <= n) / max(1, len(rows))

        return " | ".join(
            f"{at(k, 10):.3f}" if k == "pool" else f"{at(k, 1):.3f} / {at(k, 3):.3f}" for k in keys
        )

    lines = ["| site | split | kind | n | " + " | ".join(keys) + " |", "|---" * (len(keys) + 4) + "|"]
    for res in results:
        lines.append(
            f"| {res['name']} | {res['split']} | all | {len(res['ranks'])} | {cells(res['ranks'])} |"
        )
    for split in ("tuning", "validation"):
        rows = [r for res in results if res["split"] == split for r in res["ranks"]]
        for kind in ("all", *audit_sites.KINDS):
            some = [r for r in rows if kind in ("all", r["kind"])]
            if some:
                lines.append(f"| **pooled** | {split} | {kind} | {len(some)} | {cells(some)} |")
    lines.append(
        f"\nsuccess@1 / @3 ('pool': within the top {args.top} at all); model time per call ({args.top} pairs, "
        f"≤{args.tokens} tokens): {rerank.timing(times, args.threads)}; {cm.provenance()}"
    )
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sites", required=True, help="audit sites (comma-separated names of audit_sites.json)")
    p.add_argument("--pages", type=int, default=30, help="pages sampled per site")
    p.add_argument("--work", type=Path, default=Path("/tmp/docslice-audit"), help="audit_sites.py's --work")
    p.add_argument("--top", type=int, default=20)
    p.add_argument("--chars", type=int, default=600)
    p.add_argument("--passage", choices=("window", "start"), default="window")
    p.add_argument("--tokens", type=int, default=160)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--weights", default="1,0.7,0.5,0.3")
    p.add_argument("--model", default=None)
    p.add_argument("--json", default=None, help="write every item's ranks here (after each site)")
    args = p.parse_args()
    args.weights = [float(w) for w in args.weights.split(",")]
    logging.getLogger("httpx").setLevel(logging.WARNING)
    enc = rerank.CrossEncoder(rerank.model_folder(args.model), args.threads, args.tokens)
    results = []
    for site in audit_sites.load_sites(args.sites, large=True):
        res = asyncio.run(audit_site(site, enc, args))
        if res is not None:
            results.append(res)
            print(
                f"{site['name']}: {len(res['ranks'])} items, load {os.getloadavg()[0]:.1f}", file=sys.stderr
            )
            if args.json:
                Path(args.json).write_text(
                    json.dumps({"sites": results, "times": enc.times()}), encoding="utf-8"
                )
    print(table(results, enc.times(), args))


if __name__ == "__main__":
    main()
