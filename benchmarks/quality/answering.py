"""What a scripted agent sees before a benchmark question is answered: the runs, their figures and reports
(`context_to_answer.py` is its command line, `scoreboard.py` runs it on every set)."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shlex
import sys
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

# benchmarks/: common.py, question_files.py and the other folders
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import budget
import common as cm
from policies import DIRECT, SEARCHING, SERVED, Call, Run, SharedDocs  # noqa: F401  (cta.Run etc. still work)

POLICIES = ("pipeline", "in-doc", "agent", "section", "whole-page", "paged-5000")
#: Per policy: its figures (solved, chars, calls, within-budget counts), as `summarise` gives them.
Stats = dict[str, dict[str, Any]]
BUDGET_NOTE = "solved, with at most that many characters seen; unsolved questions count against every budget"


async def build_index(root: str, cache_dir: str, extra: list[str] | None = None) -> Any:
    """Crawl the served docs into a site index (docs_mcp.cli.app.App wiring); the App holds index and indexer."""
    from docs_mcp.cli.app import App
    from docs_mcp.cli.arguments import parser
    from docs_mcp.cli.report import summary

    argv = ["serve", "--source", root, "--cache-dir", cache_dir, "--no-index", *(extra or [])]
    app = App(parser().parse_args(argv))
    for report in await app.indexer.run():
        print(summary(report), file=sys.stderr)
    return app


async def run_one(root: str, store: SharedDocs, q: dict[str, Any], policy: str, app: Any = None) -> Run:
    """One policy on one question on a fresh server (search_docs: the site index if any, else this run)."""
    from mcp import Client

    from docs_mcp.tools.docs import DocsTools
    from docs_mcp.transport.server import build_server

    if app is not None and policy in SEARCHING:
        tools = DocsTools(app.sources, app.settings, searcher=app.search, store=app.search)
    else:
        tools = cm.make_tools(root)
        tools.store = store
    gold = root + q["page"]
    r = Run(q["id"], policy, form=q.get("form", "full"))
    try:
        if policy in DIRECT:
            await DIRECT[policy](tools, q, gold, r)
        else:
            async with Client(build_server(tools), mode="legacy") as client:

                async def call(name: str, args: dict[str, Any]) -> str:
                    """Call a tool; what the model sees (errors included)."""
                    return cm.model_view(await client.call_tool(name, args))

                await SERVED[policy](call, q, gold, r)
    except Exception as exc:  # record and go on: one broken question must not hide the others
        r.note = f"{r.note}; {exc.__class__.__name__}: {exc}".lstrip("; ")
    finally:
        store.keep(tools)
        await tools.aclose()
    return r


def summarise(runs: list[Run], policies: list[str], only: set[str] | None = None) -> Stats:
    """Per policy: solved share, median chars when solved, chars per solved question, calls per question.

    `only` restricts it to those question ids (one half of the set).
    """
    out = {}
    for p in policies:
        rs = [r for r in runs if r.policy == p and (only is None or r.id in only)]
        solved = [r for r in rs if r.solved]
        total = sum(r.chars for r in rs)
        out[p] = {
            "n": len(rs),
            "solved": len(solved),
            "solved_pct": 100 * len(solved) / max(1, len(rs)),
            "median_chars": cm.median([r.chars for r in solved]),
            "chars_per_solved": total / len(solved) if solved else float("inf"),
            "calls": sum(r.calls for r in rs) / max(1, len(rs)),
            "within": budget.within(rs),
        }
    return out


def curve(stats: Stats, halves: dict[str, Stats] | None = None) -> str:
    """The budget curve table: each policy on the whole set, then on its tuning and validation halves."""
    rows = []
    for p, s in stats.items():
        rows.append(((p, "all"), s))
        rows += [((p, name), by_policy[p]) for name, by_policy in (halves or {}).items()]
    return budget.table(rows, ["policy", "half"])


def curve_json(stats: Stats, halves: dict[str, Stats]) -> dict[str, dict[str, list[float]]]:
    """The curve per half ('all' too) and policy, in percent per budget: what a later run diffs against."""
    return {
        h: {p: budget.shares(s["within"], s["n"]) for p, s in by_policy.items()}
        for h, by_policy in {"all": stats, **halves}.items()
    }


def table(stats: Stats, halves: dict[str, Stats] | None = None) -> str:
    """The results table: each policy on the whole set, then on its tuning and validation halves."""

    def num(x: float) -> str:
        return "—" if x != x or x == float("inf") else f"{x:,.0f}"

    def row(p: str, label: str, s: dict[str, Any]) -> list[str]:
        return [
            p,
            label,
            f"{s['solved_pct']:.0f}% ({s['solved']:.0f}/{s['n']:.0f})",
            num(s["median_chars"]),
            num(s["chars_per_solved"]),
            f"{s['calls']:.2f}",
        ]

    rows = []
    for p, s in stats.items():
        rows.append(row(p, "all", s))
        for name, by_policy in (halves or {}).items():
            if by_policy[p]["n"]:
                rows.append(row(p, name, by_policy[p]))
    return cm.md_table(
        [
            "policy",
            "half",
            "solved %",
            "median chars when solved",
            "chars per solved question",
            "calls per question",
        ],
        rows,
    )


def targets(stats: Stats) -> list[str]:
    """The issue's targets, each marked met / not met (or not measured)."""
    ind, pag, pip = (stats.get(k) for k in ("in-doc", "paged-5000", "pipeline"))
    ratio = pag["median_chars"] / ind["median_chars"] if ind and pag and ind["median_chars"] > 0 else None
    checks: list[tuple[str, float | None, Callable[[float], bool], str]] = [
        ("in-doc solves ≥ 95%", ind["solved_pct"] if ind else None, lambda v: v >= 95, "{:.0f}%"),
        (
            "in-doc median chars when solved ≤ 3,000",
            ind["median_chars"] if ind else None,
            lambda v: v <= 3000,
            "{:,.0f}",
        ),
        ("in-doc ≥ 3× fewer chars than paged-5000 (median when solved)", ratio, lambda v: v >= 3, "{:.1f}×"),
        ("pipeline solves ≥ 85%", pip["solved_pct"] if pip else None, lambda v: v >= 85, "{:.0f}%"),
        (
            "pipeline answers ≥ 80% within 8,000 chars",
            budget.shares(pip["within"], pip["n"])[budget.BUDGETS.index(8_000)] if pip else None,
            lambda v: v >= 80,
            "{:.1f}%",
        ),
        ("pipeline ≤ 2.5 calls per question", pip["calls"] if pip else None, lambda v: v <= 2.5, "{:.2f}"),
        (
            "pipeline ≤ 5,000 chars per solved question",
            pip["chars_per_solved"] if pip else None,
            lambda v: v <= 5000,
            "{:,.0f}",
        ),
    ]
    lines = []
    for label, value, ok, fmt in checks:
        if value is None:
            lines.append(f"- {label}: not measured")
            continue
        shown = "nothing solved" if value == float("inf") else fmt.format(value)
        lines.append(f"- {label}: {'**met**' if ok(value) else '**not met**'} ({shown})")
    if pip and not pip["solved"]:
        lines.append("- (pipeline solved nothing: its calls target is met only vacuously)")
    return lines


@dataclass
class FormResult:
    """Every policy's runs on the set asked in one query form, summarised whole and per half."""

    form: str
    questions: list[dict[str, Any]]
    runs: list[Run]
    stats: Stats
    halves: dict[str, Stats]
    missed: list[tuple[str, str]]

    @classmethod
    def of(
        cls, form: str, questions: list[dict[str, Any]], runs: list[Run], policies: list[str]
    ) -> FormResult:
        """Summarise one form's runs (misses are filled in once the pages are known)."""
        halves = {h: {q["id"] for q in questions if cm.half(q) == h} for h in cm.HALVES}
        stats = summarise(runs, policies)
        return cls(
            form, questions, runs, stats, {h: summarise(runs, policies, ids) for h, ids in halves.items()}, []
        )

    def lines(self) -> list[str]:
        """The form's budget curve, its figures per policy and half, and the targets."""
        return [
            f"Budget curve, {self.form} queries ({BUDGET_NOTE}):",
            "",
            curve(self.stats, self.halves),
            "",
            table(self.stats, self.halves),
            "",
            "Targets:",
            "",
            *targets(self.stats),
        ]

    def json(self) -> dict[str, Any]:
        """The form's curve and summaries for --json."""
        return {"curve": curve_json(self.stats, self.halves), "summary": {"all": self.stats, **self.halves}}


def write_report(path: Path, results: list[FormResult], args: argparse.Namespace, docs: Path) -> None:
    """Replace this docs folder's '## Context to answer' section of docs/benchmarks.md."""
    argv = sys.argv[1:]
    cmd = "PYTHONPATH=src python benchmarks/quality/context_to_answer.py" + (
        " " + shlex.join(argv) if argv else ""
    )
    qfile = Path(args.questions).resolve()
    base = next((b for b in (cm.REPO_ROOT, cm.REPO_ROOT.parent) if qfile.is_relative_to(b)), None)
    qname = qfile.relative_to(base) if base else qfile
    search = (
        "`search_docs` searches a site index crawled from the served docs first (`--index`)"
        if args.index
        else "`search_docs` has no site index, so it knows only pages that run has read"
    )
    body = [
        f"Run {dt.date.today().isoformat()} on {platform.platform()} ({os.cpu_count()} cores), "
        f"Python {platform.python_version()}; {len(results[0].questions)} questions from `{qname}` "
        f"over {'the Python 3.11 HTML docs' if docs == cm.DOCS_DIR else f'`{docs}`'} served on loopback; "
        f"{cm.provenance()}.",
        "",
        "```sh",
        cmd,
        "```",
        "",
        "Characters are what the model saw (sum of all responses up to and including the one holding a "
        f"needle; for unsolved questions, everything spent). Each question runs on a fresh server; {search}. "
        "Halves: even question ids are the tuning half, odd ids the validation half (`common.half`); "
        "changes are decided on the tuning half.",
    ]
    for res in results:
        ours = [
            line for policy, line in res.missed if policy in SERVED
        ]  # not the whole-page and paged baselines
        body += [
            "",
            *res.lines(),
            "",
            f"Misses of docs-mcp's own policies, {res.form} queries ({len(ours)}), with the reason the "
            "benchmark finds (`--verbose` prints the same list):",
            "",
            "```",
            *ours,
            "```",
        ]
    cm.replace_section(path, report_heading(docs), "\n".join(body))


def report_heading(docs: Path) -> str:
    """'## Context to answer' for the Python docs; other sites get their own section, named by folder."""
    name = cm.site_name(docs)
    return f"## Context to answer: {name}" if name else "## Context to answer"


def diagnose(r: Run, q: dict[str, Any], doc: Any) -> str:
    """Why a run missed: where the needle sits on the gold page and what the policy showed of it."""
    from docs_mcp.search.in_page.ranking import page_index

    if doc is None:
        return "gold page not read"
    if r.policy == "pipeline":
        read = [v.split("\n", 2)[1].split(" ", 1)[0] for v in r.views[1:] if v.count("\n") >= 2]
        if not any(cm.same_page(u, q["page"]) for u in read):
            listed = bool(r.views) and any(cm.same_page(u, q["page"]) for u in cm.result_urls(r.views[0]))
            return (
                "gold page 3rd in search results, not read"
                if listed
                else "gold page not in the top 3 results"
            )
    holding = [i for i in range(len(doc.sections)) if cm.found(doc.own_markdown(i), q["needles"])]
    if not holding:
        in_code = any(cm.found(doc.own_markdown(i, True), q["needles"]) for i in range(len(doc.sections)))
        return "needle only in a code block" if in_code else "needle not on the gold page"
    if r.policy not in ("in-doc", "pipeline"):
        return "needle section read, needle not reached"
    order = [s.index for s in page_index(doc).rank(q["query"])]
    best = min((order.index(i) + 1 for i in holding if i in order), default=None)
    shown = any(f"#{doc.sections[i].id}\n" in v for i in holding for v in r.views)
    if shown:
        return "needle section shown, needle outside the passages shown"
    return (
        f"needle section ranked {best} on the page, not shown"
        if best
        else "needle section shares no query term"
    )


def failures(
    runs: list[Run], questions: dict[str, dict[str, Any]], store: SharedDocs, root: str
) -> list[tuple[str, str]]:
    """Per failed run: its policy, and a line with id, policy, why and gold section."""
    by_url = {doc.url: doc for doc in store.docs.values()}
    out = []
    for r in runs:
        if r.solved:
            continue
        q = questions[r.id]
        why = diagnose(r, q, by_url.get(root + q["page"]))
        note = f" [{r.note}]" if r.note else ""
        out.append((r.policy, f"{r.id} {r.policy:<10} {why} (gold section {q['section']!r}){note}"))
    return out


async def run_all(args: argparse.Namespace) -> None:
    """Run every selected policy on every question in each form asked, print and optionally write the results."""
    questions = cm.of_half(cm.load_questions(args.questions, args.limit), args.half)
    policies = [p.strip() for p in args.policies.split(",") if p.strip()]
    unknown = set(policies) - set(POLICIES)
    if unknown:
        raise SystemExit(f"unknown policies {sorted(unknown)}; choose from {', '.join(POLICIES)}")
    asked = {f: [cm.in_form(q, f) for q in questions] for f in cm.forms(args.form, "full")}
    store = SharedDocs()
    docs = Path(args.docs) if args.docs else cm.questions_docs(args.questions)
    results = []
    with cm.docs_server(docs) as root, tempfile.TemporaryDirectory(prefix="docs-mcp-idx-") as tmp:
        app = await build_index(root, tmp) if args.index else None
        for form, qs in asked.items():
            runs = []
            for i, q in enumerate(qs, 1):
                runs += [await run_one(root, store, q, p, app) for p in policies]
                if args.progress:
                    print(f"  {form} {i}/{len(qs)} {q['id']}", file=sys.stderr)
            results.append(FormResult.of(form, qs, runs, policies))
        if app is not None:
            await app.tools.aclose()
            app.index.close()
    for res in results:
        res.missed = failures(res.runs, {q["id"]: q for q in res.questions}, store, root)
        print(f"Context to answer — {len(questions)} questions, {res.form} queries\n")
        print("\n".join(res.lines()) + "\n")
        if args.verbose:
            print(f"failures, {res.form} queries ({len(res.missed)}):")
            print("\n".join("  " + line for _, line in res.missed) + "\n")
    if args.json:
        write_json(Path(args.json), results, args)
    if args.out:
        out = Path(args.out)
        write_report(out if out.is_absolute() else cm.REPO_ROOT / out, results, args, docs)
        print(f"wrote the '{report_heading(docs)}' section of {args.out}")


def write_json(path: Path, results: list[FormResult], args: argparse.Namespace) -> None:
    """Per form its curve and summaries, and every run (with the start of its last view): a later run diffs."""
    rows = []
    for res in results:
        asked = {q["id"]: q["query"] for q in res.questions}  # the form's query text, for reading a diff
        rows += [
            {k: v for k, v in asdict(r).items() if k != "views"}
            | {"query": asked[r.id], "last_view": r.views[-1][:2000] if r.views else ""}
            for r in res.runs
        ]
    out = {
        "questions": str(args.questions),
        "budgets": list(budget.BUDGETS),
        "forms": {res.form: res.json() for res in results},
        "runs": rows,
    }
    path.write_text(json.dumps(out, indent=1, ensure_ascii=False), encoding="utf-8")
