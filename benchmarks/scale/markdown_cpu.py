"""Markdown of real sites' sections: the lxml converter against markdownify (the reference the tests hold it to),
sections whose markdown differs and CPU a conversion of each.

Usage: python benchmarks/scale/markdown_cpu.py [--pages 400] NAME=DIR ...
e.g.   python benchmarks/scale/markdown_cpu.py python=/usr/share/doc/python3.11/html \
           postgresql=/usr/share/doc/postgresql-doc-15/html junit=/usr/share/doc/junit4-doc
Each site: up to --pages HTML files (a fixed shuffle), through the pipeline up to its sections' stored HTML, each
section converted with and without code. Prints per site and in all, with the load.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "tests" / "unit"))  # the reference converter lives with its test

from test_html_markdown import reference  # noqa: E402

from docs_mcp.convert.anchors import linked_fragments  # noqa: E402
from docs_mcp.convert.html_markdown import to_markdown  # noqa: E402
from docs_mcp.convert.parsing import find_main, parse_html, strip_noise  # noqa: E402
from docs_mcp.convert.sections import split_html  # noqa: E402
from docs_mcp.errors import DocsMCPError  # noqa: E402


def sections(root: str, pages: int) -> list[str]:
    """The stored HTML of every section of up to `pages` pages of the site."""
    files = sorted(  # os.walk: Debian's doc packages link folders (junit4-doc's api/)
        os.path.join(d, f) for d, _, fs in os.walk(root, followlinks=True) for f in fs if ".htm" in f
    )
    random.Random(7).shuffle(files)
    found = []
    for path in files[:pages]:
        try:
            page = parse_html(Path(path).read_text(encoding="utf-8", errors="replace"))
            linked = linked_fragments(page, Path(path).as_uri())
            main = find_main(page)
            strip_noise(main, None)
            found.extend(s.body_html for s in split_html(main, linked) if s.body_html and s.body_html.strip())
        except (DocsMCPError, ValueError):
            continue
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pages", type=int, default=400)
    ap.add_argument("sites", nargs="+", help="NAME=DIR")
    args = ap.parse_args()
    print(f"load {os.getloadavg()[0]:.1f}")
    total = [0, 0, 0.0, 0.0]
    for site in args.sites:
        name, _, root = site.partition("=")
        n = differing = 0
        old = new = 0.0
        for html in sections(root, args.pages):
            for code in (True, False):
                c0 = time.process_time()
                a = reference(html, code)
                c1 = time.process_time()
                b = to_markdown(html, code)
                new += time.process_time() - c1
                old += c1 - c0
                n += 1
                differing += a != b
        print(
            f"{name:12s} conversions {n:6d}  differing {differing:3d}  markdownify {old:6.2f} s  lxml {new:6.2f} s"
        )
        total = [total[0] + n, total[1] + differing, total[2] + old, total[3] + new]
    n, differing, old, new = total
    print(
        f"all: {n} conversions, {differing} differing; CPU a conversion: markdownify {old / n * 1e3:.2f} ms, "
        f"lxml {new / n * 1e3:.2f} ms ({old / new:.1f}x); load {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
