"""The index damaged while a server uses it: page calls answered meanwhile, and time until search is back.

PYTHONPATH=src python benchmarks/reliability/index_heal.py [--docs DIR]   (default: the Python 3.11 docs)
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
import time
from pathlib import Path

# benchmarks/: common.py, question_files.py and the other folders
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import common as cm

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser


def damage(path: Path) -> None:
    """Every page after the header page overwritten, as a stray write or a bad disk would."""
    data = path.read_bytes()
    page = int.from_bytes(data[16:18], "big")
    path.write_bytes(data[:page] + b"\xa5" * (len(data) - page))


async def run(docs: Path) -> None:
    with cm.docs_server(docs) as root, tempfile.TemporaryDirectory() as tmp:
        argv = ["serve", "--cache-dir", tmp, "--source", root]
        first = App(parser().parse_args(argv))
        await first.indexer.run()
        pages = first.index.page_count()
        await first.tools.aclose()
        first.index.close()
        app = App(parser().parse_args(argv))
        app.loop = asyncio.get_running_loop()
        damage(Path(tmp) / "index.sqlite")
        t0 = time.perf_counter()
        urls = [root + p for p in ("index.html", "library/os.html", "library/re.html", "tutorial/index.html")]
        answered = 0
        for url in urls:
            text = await app.tools.get_doc_toc(url)
            answered += "#" in text
        while app._rebuild is None:
            await asyncio.sleep(0.01)
        await app._rebuild
        back = time.perf_counter() - t0
        hits = await app.tools.search_docs("regular expression flags", 3)
        print(f"{pages:,} pages indexed, then the file damaged under a running App")
        print(f"page calls answered during the damage: {answered} of {len(urls)}")
        print(f"search back (file moved aside, rebuilt) after {back:.1f} s: {app.index.page_count():,} pages")
        print("search answers:", "result(s)" in hits)
        await app.tools.aclose()
        app.index.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=Path, default=cm.DOCS_DIR)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    asyncio.run(run(ap.parse_args().docs))


if __name__ == "__main__":
    main()
