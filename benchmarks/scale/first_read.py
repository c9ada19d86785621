"""A page's first read on a replica, in process: CPU of `search_in_doc`'s work on a page just loaded from the index
(decode, in-page index, sections rendered) and on the same page again, per question; and markdown CPU a section.

Usage: python benchmarks/scale/first_read.py --cache-dir DIR [--source /usr/share/doc/python3.11/html]
       [--questions PATH]
The index in DIR must hold the source (`docslice index --source … --cache-dir DIR`). Each question's page is
its first `search_docs` hit, as an agent's next call reads it. Prints CPU (process_time) with the load.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from common import DOCS_DIR, load_questions, median, p95

from docs_mcp import settings as C
from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser
from docs_mcp.convert.markdown import convert
from docs_mcp.search.in_page.answer import search_page
from docs_mcp.text.budget import window_length


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cache-dir", required=True)
    ap.add_argument("--source", default=str(DOCS_DIR))
    ap.add_argument("--questions", default=None)
    args = ap.parse_args()
    app = App(
        parser().parse_args(["serve", "--source", args.source, "--no-index", "--cache-dir", args.cache_dir])
    )
    tools = app.tools
    limit = window_length(C.DEFAULT_MAX_LENGTH, tools.cap)
    first, again, rendered = [], [], []
    for q in load_questions(args.questions):
        hits = app.search.search(q["query"], 1)
        if not hits:
            continue
        uid = tools.sources.resolve(hits[0].url).uid
        c0 = time.process_time()
        doc = tools.store.load_document(uid)
        search_page(doc, q["query"], C.DEFAULT_MAX_SECTIONS, limit, False, tools.cap, None)
        c1 = time.process_time()
        search_page(doc, q["query"], C.DEFAULT_MAX_SECTIONS, limit, False, tools.cap, None)
        c2 = time.process_time()
        first.append((c1 - c0) * 1e3)
        again.append((c2 - c1) * 1e3)
        for s in doc.sections:  # every section of the page, as a first read might show any
            if s.body_html:
                c3 = time.process_time()
                convert(s.body_html, False, len(s.entries))
                rendered.append((time.process_time() - c3) * 1e3)
    print(f"load {os.getloadavg()[0]:.1f}; {len(first)} questions, CPU ms (process_time)")
    for name, v in (("first read", first), ("again", again), ("markdown a section", rendered)):
        print(f"{name:20s} p50 {median(v):6.2f}  p95 {p95(v):7.2f}  sum {sum(v):8.0f}  (n={len(v)})")


if __name__ == "__main__":
    main()
