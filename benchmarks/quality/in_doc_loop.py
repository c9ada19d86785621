"""search_in_doc alone, fast: the scoreboard's `in-doc` policy (search_in_doc on the gold page, default arguments)
over question sets, in-process, with settings overridden for a trial, and what each miss looked like.

The same count as the scoreboard's in-doc, in under a minute for 17 sets instead of a crawl per set: pages are
fetched from each set's docs served on loopback, no site index is built. `--set NAME=VALUE` overrides a setting
of `docs_mcp.settings` or the in-page ranking wherever a module holds it (one bound as a default argument is not
reached),
`DOCSLICE_ABLATE` turns a mechanism off; `--misses FILE` writes each unsolved question with the gold section's rank, whether it was shown, the top
sections and the response, to read why.

    python benchmarks/quality/in_doc_loop.py --half tune --sets python,bash,sqlite
    DOCSLICE_ABLATE=fill python benchmarks/quality/in_doc_loop.py --half validate --set FILL_CHARS=1200
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import common as cm  # benchmarks/ is a folder of scripts, not a package
import scoreboard

import docs_mcp.search.in_page.passages  # noqa: F401  (loaded, so that --set reaches its copies)
import docs_mcp.search.in_page.ranking as ranking
import docs_mcp.settings as settings

FORMS = ("full", "terse")


def override(pairs: list[str]) -> None:
    """NAME=VALUE pairs: a constant of docs_mcp.settings or of the in-page ranking, set wherever a loaded
    docs_mcp module holds it (`from … import NAME` copies it)."""
    for pair in pairs:
        name, _, value = pair.partition("=")
        home = next((m for m in (settings, ranking) if hasattr(m, name)), None)
        if home is None:
            raise SystemExit(f"no setting {name} in docs_mcp.settings or the in-page ranking")
        was = getattr(home, name)
        typed = type(was)(value)
        for module in [m for n, m in sys.modules.items() if n.startswith("docs_mcp") and m is not None]:
            if getattr(module, name, None) is was:
                setattr(module, name, typed)


async def why_missed(tools: Any, url: str, q: dict[str, Any], text: str) -> dict[str, Any]:
    """The gold section's rank among the page's ranked sections, whether it was shown, the top ones."""
    from docs_mcp.tools.versioned import document

    _, doc = await document(tools, url, None)
    ranked = ranking.page_index(doc).rank(q["query"])
    holding = {i for i in range(len(doc.sections)) if cm.found(doc.own_markdown(i), q["needles"])}
    order = [s.index for s in ranked]
    return {
        "query": q["query"],
        "needles": q["needles"],
        "gold": q.get("section"),
        "rank": min((order.index(i) + 1 for i in holding if i in order), default=None),
        "shown": any(f"#{doc.sections[i].id}\n" in text for i in holding),
        "top": [
            [k + 1, round(s.score, 2), " > ".join(doc.short_path(s.index)), s.index in holding]
            for k, s in enumerate(ranked[:10])
        ],
        "text": text,
    }


async def run_set(name: str, path: Path, half: str, misses: bool) -> list[dict[str, Any]]:
    """One row per question and form: solved, and the response's size."""
    questions = cm.of_half(cm.load_questions(path), half)
    rows = []
    with cm.docs_server(cm.questions_docs(path)) as root:
        tools = cm.make_tools(root)
        try:
            for form in FORMS:
                for q in (cm.in_form(q0, form) for q0 in questions):
                    url = root + q["page"]
                    text = await tools.search_in_doc(url, q["query"])
                    row = {"set": name, "id": q["id"], "form": form, "solved": cm.found(text, q["needles"])}
                    row["chars"] = len(text)
                    if misses and not row["solved"]:
                        row |= await why_missed(tools, url, q, text)
                    rows.append(row)
        finally:
            await tools.aclose()
    return rows


def summary(rows: list[dict[str, Any]]) -> str:
    """Solved, and solved within 2,000 and 4,000 chars, of all rows."""
    solved = [r for r in rows if r["solved"]]
    within = [sum(r["chars"] <= b for r in solved) for b in (2_000, 4_000)]
    return f"{len(solved)}/{len(rows)} solved, {within[0]} within 2,000, {within[1]} within 4,000 chars"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", help="comma-separated set names or question files (default: all)")
    parser.add_argument("--half", choices=("tune", "validate"), default="tune")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="override a setting")
    parser.add_argument(
        "--misses", type=Path, help="write the unsolved questions, with why, to this JSON file"
    )
    args = parser.parse_args()
    override(args.set)
    started, rows = time.process_time(), []
    for name, path in scoreboard.question_sets(args.sets.split(",") if args.sets else None):
        if not cm.questions_docs(path).is_dir():
            print(f"{name}: its docs are not on this machine, skipped")
            continue
        got = await run_set(name, path, args.half, args.misses is not None)
        rows += got
        print(f"{name:14} {summary(got)}", flush=True)
    for form in FORMS:
        print(f"all, {form}: {summary([r for r in rows if r['form'] == form])}")
    settings_said = ", ".join(args.set) or "defaults"
    print(
        f"all: {summary(rows)} · {args.half} half · {settings_said} · ablated: {os.environ.get('DOCSLICE_ABLATE', '')}"
        f" · CPU {time.process_time() - started:.0f} s · load {os.getloadavg()[0]:.1f} · {cm.commit()}"
    )
    if args.misses:
        args.misses.write_text(json.dumps([r for r in rows if not r["solved"]], indent=1, ensure_ascii=False))


if __name__ == "__main__":
    asyncio.run(main())
