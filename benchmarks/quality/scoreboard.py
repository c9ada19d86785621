"""The whole scoreboard: every question set, one table per site (tuning and validation halves), in one run.

Run through `context_to_answer.py --all` (or `--sets python,bash`). Each set's docs folder is served on
loopback and crawled into a fresh index; then, per question: `in-doc` (search_in_doc on the gold page),
`pipeline` (search_docs → search_in_doc on up to two result pages) and `agent` (a persistent agent: search,
read what was shown, follow the map of units not shown, at most 6 calls), the peers' `whole-page` and
`paged-5000` (given the gold page), and the search figures recall@5 / MRR@10 (one search_docs call with 10
results, not counted as context). The output leads with the budget curve (budget.py).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import sys
import tempfile
from pathlib import Path
from typing import Any

# benchmarks/: common.py, question_files.py and the other folders
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import answering as cta
import budget
import common as cm
import question_files

SETS_DIR = question_files.SETS_DIR
POLICIES = ("in-doc", "pipeline", "agent")
#: The peers' ways of reading, for comparison on the budget curve: they are given the gold page.
PEERS = ("whole-page", "paged-5000")
RUN = POLICIES + PEERS
CURVE_TITLE = (
    "Budget curve: the share of all questions answered within each budget of characters ("
    + cta.BUDGET_NOTE
    + "). docslice's `in-doc` is given the gold page, `pipeline` and `agent` find it; the peers "
    "`whole-page` (the page in one response) and `paged-5000` (5,000-char slices from the top) are given it. "
    "Form `full` asks each question as written, `terse` as an agent types it into a search box (2-6 words)."
)


def question_sets(names: list[str] | None = None) -> list[tuple[str, Path]]:
    """(name, path) of every set (Python's shared set first, then benchmarks/questions/*.json), or of those
    named; a name ending in .json is a question file of its own."""
    sets = [("python", cm.DEFAULT_QUESTIONS)] + [(p.stem, p) for p in question_files.set_files(SETS_DIR)]
    files = [(Path(n).stem, Path(n)) for n in names or () if n.endswith(".json")]
    names = [n for n in names or () if not n.endswith(".json")]
    if files and not names:
        return files
    if names:
        unknown = set(names) - {n for n, _ in sets}
        if unknown:
            raise SystemExit(f"unknown sets {sorted(unknown)}; choose from {', '.join(n for n, _ in sets)}")
        sets = [s for s in sets if s[0] in names]
    return sets + files


async def search_ranks(app: Any, questions: list[dict[str, Any]]) -> dict[str, int | None]:
    """Per question: the gold page's rank in search_docs' 10 results (None when absent)."""
    from docs_mcp.tools.docs import DocsTools

    tools = DocsTools(app.sources, app.settings, searcher=app.search, store=app.search)
    ranks: dict[str, int | None] = {}
    try:
        for q in questions:
            urls = list(dict.fromkeys(cm.result_urls(await tools.search_docs(q["query"], 10))))
            ranks[q["id"]] = next((i for i, u in enumerate(urls, 1) if cm.same_page(u, q["page"])), None)
    finally:
        await tools.aclose()
    return ranks


def search_figures(ranks: dict[str, int | None], ids: set[str]) -> tuple[float, float]:
    """recall@5 and MRR@10 over these question ids."""
    rs = [ranks[i] for i in ids if i in ranks]
    if not rs:
        return float("nan"), float("nan")
    recall = sum(1 for r in rs if r is not None and r <= 5) / len(rs)
    mrr = sum(1 / r for r in rs if r is not None and r <= 10) / len(rs)
    return recall, mrr


def asked_forms(name: str, questions: list[dict[str, Any]], choice: str | None) -> list[str]:
    """The forms to run on a set (`--form`, both by default); terse only where every question has one."""
    chosen = list(cm.forms(choice, "both"))
    if "terse" in chosen and not all(q.get("terse") for q in questions):
        print(f"{name}: terse form skipped, not every question has one", file=sys.stderr)
        chosen.remove("terse")
    return chosen


def chosen_policies(asked: str) -> list[str]:
    """The scoreboard's policies that `--policies` names, in the scoreboard's order (all by default)."""
    names = {p.strip() for p in asked.split(",")}
    unknown = names - set(cta.POLICIES)
    if unknown:
        raise SystemExit(f"unknown policies {sorted(unknown)}; choose from {', '.join(cta.POLICIES)}")
    chosen = [p for p in RUN if p in names]
    if not chosen:
        raise SystemExit(f"--policies names none the scoreboard runs ({', '.join(RUN)})")
    return chosen


async def run_set(name: str, path: Path, args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every policy and the search figures on one set, one result per query form; none when its docs are not
    installed. Both forms search the same index, built once."""
    questions = cm.of_half(cm.load_questions(path, args.limit), args.half)
    chosen = chosen_policies(args.policies)
    docs = cm.questions_docs(path)
    if not docs.is_dir():
        print(f"{name}: skipped, its docs are not installed at {docs}", file=sys.stderr)
        return []
    asked = {f: [cm.in_form(q, f) for q in questions] for f in asked_forms(name, questions, args.form)}
    load_before = os.getloadavg()[0]
    runs: dict[str, list[cta.Run]] = {f: [] for f in asked}
    ranks: dict[str, dict[str, int | None]] = {}
    store = cta.SharedDocs()
    with cm.docs_server(docs) as root, tempfile.TemporaryDirectory(prefix="docslice-board-") as tmp:
        app = await cta.build_index(root, tmp, ["--crawl-limit", str(args.crawl_limit)])
        try:
            for form, qs in asked.items():
                ranks[form] = await search_ranks(app, qs)
                for i, q in enumerate(qs, 1):
                    runs[form] += [await cta.run_one(root, store, q, p, app) for p in chosen]
                    if args.progress:
                        print(f"  {name} {form} {i}/{len(qs)} {q['id']}", file=sys.stderr)
        finally:
            await app.tools.aclose()
            app.index.close()
        missed = {f: cta.failures(runs[f], {q["id"]: q for q in qs}, store, root) for f, qs in asked.items()}
    halves = {h: {q["id"] for q in questions if cm.half(q) == h} for h in cm.HALVES}
    run = cm.run_record(
        " ".join([cm.PY, "benchmarks/quality/context_to_answer.py", *sys.argv[1:]]), load_before
    )
    return [
        {
            "name": name,
            "form": form,
            "n": len(questions),
            "docs": str(docs),
            "budgets": list(budget.BUDGETS),
            "stats": {h: cta.summarise(runs[form], chosen, ids) for h, ids in halves.items()},
            "search": {h: search_figures(ranks[form], ids) for h, ids in halves.items()},
            "missed": [line for _, line in missed[form]],
            "run": run,
            "runs": [{k: v for k, v in vars(r).items() if k != "views"} for r in runs[form]],
        }
        for form in asked
    ]


def form_of(res: dict[str, Any]) -> str:
    """A result's query form (results written before there were forms are the full form)."""
    return str(res.get("form", "full"))


def _pct(s: dict[str, float]) -> str:
    return f"{s['solved_pct']:.0f}%"


def _num(x: float) -> str:
    return "—" if x != x or x == float("inf") else f"{x:,.0f}"


def _read(s: dict[str, float] | None) -> str:
    """A searching policy's summary cell: solved / chars per solved / calls ("—" when it did not run)."""
    if s is None:
        return "—"
    return f"{_pct(s)} / {_num(s['chars_per_solved'])} / {s['calls']:.2f}"


def summary_table(results: list[dict[str, Any]]) -> str:
    """One row per site and half: the figures the targets are stated in."""
    rows = []
    for res in results:
        for h in cm.HALVES:
            st, (rec, mrr) = res["stats"][h], res["search"][h]
            ind = st.get("in-doc")
            rows.append(
                [
                    res["name"],
                    form_of(res),
                    h,
                    f"{next(iter(st.values()))['n']:.0f}",
                    f"{_pct(ind)} / {_num(ind['median_chars'])}" if ind else "—",
                    _read(st.get("pipeline")),
                    _read(st.get("agent")),
                    f"{rec:.3f} / {mrr:.3f}",
                ]
            )
    return cm.md_table(
        [
            "site",
            "form",
            "half",
            "questions",
            "in-doc: solved / median chars",
            "pipeline: solved / chars per solved / calls",
            "agent: solved / chars per solved / calls",
            "search recall@5 / MRR@10",
        ],
        rows,
    )


def site_section(res: dict[str, Any]) -> str:
    """One site's table (each policy on each half) and its misses with the reason the benchmark finds."""
    both = {h: res["stats"][h] for h in cm.HALVES}
    lines = [
        f"### {res['name']}" + ("" if form_of(res) == "full" else f", {form_of(res)} queries"),
        "",
        f"{res['n']} questions over `{res['docs']}`, asked in their {form_of(res)} form.",
        "",
        cta.table(_merge(both), both),
        "",
        f"Misses ({len(res['missed'])}):",
        "",
        "```",
        *res["missed"],
        "```",
    ]
    return "\n".join(lines)


def _merge(by_half: dict[str, dict[str, dict[str, float]]]) -> dict[str, dict[str, float]]:
    """The whole set's figures from its two halves (counts add; medians are not recomputed: shown per half)."""
    out = {}
    for p in by_half["tune"]:
        a, b = by_half["tune"][p], by_half["validate"][p]
        both = budget.pooled([a, b])
        n, solved = both["n"], both["solved"]
        chars = sum(h["chars_per_solved"] * h["solved"] for h in (a, b) if h["solved"])
        out[p] = {
            **both,
            "solved_pct": 100 * solved / max(1, n),
            "median_chars": float("nan"),
            "chars_per_solved": chars / solved if solved else float("inf"),
            "calls": (a["calls"] * a["n"] + b["calls"] * b["n"]) / max(1, n),
        }
    return out


def curve_table(results: list[dict[str, Any]]) -> str:
    """The headline: every set pooled (when there are several), then per site; each form, half and policy:
    the share of all questions answered within each budget."""
    rows = []
    sets = dict.fromkeys(res["name"] for res in results)
    if len(sets) > 1:
        policies = dict.fromkeys(p for res in results for p in res["stats"]["tune"])
        for form in dict.fromkeys(form_of(r) for r in results):
            of_form = [r for r in results if form_of(r) == form]
            rows += [
                ((f"all {len(of_form)} sets", form, h, p), budget.pooled(r["stats"][h][p] for r in of_form))
                for h in cm.HALVES
                for p in policies
            ]
    rows += [
        ((res["name"], form_of(res), h, p), res["stats"][h][p])
        for res in results
        for h in cm.HALVES
        for p in res["stats"][h]
    ]
    return budget.table(rows, ["site", "form", "half", "policy"])


def write_scoreboard(path: Path, results: list[dict[str, Any]], argv: list[str]) -> None:
    """Replace the '## Scoreboard' section of docs/benchmarks.md."""
    body = "\n".join(
        [
            f"Run {dt.date.today().isoformat()} on {platform.platform()} ({os.cpu_count()} cores), "
            f"Python {platform.python_version()}; {cm.provenance()}.",
            "",
            "```sh",
            "PYTHONPATH=src python benchmarks/quality/context_to_answer.py " + " ".join(argv),
            "```",
            "",
            "Each set's docs are served on loopback and crawled into a fresh index. Characters are what the "
            "model saw (all responses up to and including the one holding a needle; for unsolved questions, "
            "everything spent). `agent` searches, reads the best passages of up to three result pages and "
            "follows each answer's map of units not shown, at most 6 calls. Even ids tune, odd ids validate.",
            "",
            CURVE_TITLE,
            "",
            curve_table(results),
            "",
            "The figures behind it (solved share, chars per solved question, calls):",
            "",
            summary_table(results),
            "",
            *(site_section(r) + "\n" for r in results),
        ]
    )
    cm.replace_section(path, "## Scoreboard", body)


async def run_scoreboard(args: argparse.Namespace) -> None:
    """Every selected set; print the summary, optionally write docs/benchmarks.md and per-set JSON."""
    names = [n.strip() for n in (args.sets or "").split(",") if n.strip()] or None
    results = []
    for name, path in question_sets(names):
        for res in await run_set(name, path, args):
            results.append(res)
            print(f"\n{site_section(res)}\n", flush=True)
            if args.json:
                Path(args.json).mkdir(parents=True, exist_ok=True)
                file = f"{name}.json" if form_of(res) == "full" else f"{name}.{form_of(res)}.json"
                (Path(args.json) / file).write_text(json.dumps(res, indent=1, ensure_ascii=False))
    print(summary_table(results))
    print(f"\n{CURVE_TITLE}\n\n{curve_table(results)}")
    if args.out:
        out = Path(args.out)
        write_scoreboard(out if out.is_absolute() else cm.REPO_ROOT / out, results, sys.argv[1:])
        print(f"\nwrote the '## Scoreboard' section of {args.out}")
