"""Context to answer: how many characters a scripted agent sees before a benchmark question is answered."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path

# benchmarks/: common.py, question_files.py and the other folders
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import common as cm
import scoreboard
from answering import POLICIES, run_all


def main() -> None:
    """Parse arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__)
    cm.add_common_args(parser)
    parser.add_argument(
        "--policies", default=",".join(POLICIES), help="comma-separated: " + ", ".join(POLICIES)
    )
    parser.add_argument(
        "--out",
        default=None,
        help=f"update this markdown file (e.g. {cm.BENCH_MD.relative_to(cm.REPO_ROOT)})",
    )
    parser.add_argument(
        "--json", default=None, help="write per-question rows to this JSON file (a folder with --all/--sets)"
    )
    parser.add_argument(
        "--half",
        choices=cm.HALVES,
        default=None,
        help="only this half of each set (even ids tune, odd ids validate), e.g. for an ablation",
    )
    parser.add_argument(
        "--form",
        choices=(*cm.FORMS, "both"),
        default=None,
        help="which form of each question to ask: as written (full), its terse form, or both as separate rows "
        "(default: full for one set, both for the scoreboard)",
    )
    parser.add_argument("--verbose", action="store_true", help="list per-question failures")
    parser.add_argument("--progress", action="store_true", help="print progress to stderr")
    parser.add_argument("--index", action="store_true", help="crawl a site index first; pipeline searches it")
    parser.add_argument(
        "--docs",
        default=None,
        help="docs folder to serve (default: the question file's 'docs', else the Python 3.11 docs)",
    )
    parser.add_argument(
        "--all", action="store_true", help="the whole scoreboard: every question set (scoreboard.py)"
    )
    parser.add_argument("--sets", default=None, help="the scoreboard on these sets only (comma-separated)")
    parser.add_argument(
        "--crawl-limit", type=int, default=100_000, help="pages crawled per site for the scoreboard"
    )
    args = parser.parse_args()
    logging.getLogger("httpx").setLevel(logging.WARNING)
    if args.all or args.sets:
        asyncio.run(scoreboard.run_scoreboard(args))
        return
    asyncio.run(run_all(args))


if __name__ == "__main__":
    main()
