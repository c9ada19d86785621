"""Which pages of the question sets' sites a change converts differently: a digest per page (title, units'
ids, titles and text, the page's markdown with code), written by one checkout and compared with another's.

    PYTHONPATH=src python benchmarks/quality/convert_digest.py --out /tmp/before.json [--every 5] [--sets bash,go]
    python benchmarks/quality/convert_digest.py --compare /tmp/before.json /tmp/after.json

A parsing change that should touch no page of the sets (noise selectors for another generator, a faster
parser) proves it here: every page's digest equal. `--every N` takes each set's every Nth page (sorted paths).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

# benchmarks/: common.py, question_files.py and the other folders
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import common as cm
import question_files

SUFFIXES = (".html", ".htm", ".md")


def page_digest(root: str, rel: str) -> str:
    """One page through the indexer's own pipeline, as a folder source reads it: the sha1 of what it gives."""
    from docs_mcp.convert.pipeline import build_document
    from docs_mcp.fetch.local import read_local
    from docs_mcp.fetch.sources import SourceSet

    try:  # a page the pipeline refuses (a link out of the folder: R's manual) is a result too
        loc = SourceSet.from_specs([root]).resolve(rel)
        doc = build_document(read_local(loc, "", 1 << 30), loc.key)
    except Exception as exc:
        return f"error: {type(exc).__name__}"
    units = [(s.id, s.title, s.level, s.text) for s in doc.sections]
    return hashlib.sha1(json.dumps([doc.title, units, doc.markdown(include_code=True)]).encode()).hexdigest()


def site_pages(docs: Path, every: int) -> list[str]:
    """The site's pages as paths relative to its folder, sorted, every `every`th."""
    found = sorted(str(p.relative_to(docs)) for p in docs.rglob("*") if p.suffix.lower() in SUFFIXES)
    return found[::every]


def digests(sets: list[str], every: int, workers: int) -> dict[str, dict[str, str]]:
    """Per set, per page, its digest."""
    out: dict[str, dict[str, str]] = {}
    with ProcessPoolExecutor(workers) as pool:
        for name in sets:
            docs = cm.questions_docs(question_files.SETS_DIR / f"{name}.json")
            pages = site_pages(docs, every)
            roots = [str(docs)] * len(pages)
            out[name] = dict(zip(pages, pool.map(page_digest, roots, pages, chunksize=16), strict=True))
            print(f"{name}: {len(pages)} pages", file=sys.stderr)
    return out


def compare(before: dict[str, dict[str, str]], after: dict[str, dict[str, str]]) -> int:
    """Print the pages whose digests differ, per set; the count of them."""
    changed = 0
    for name in sorted(before.keys() & after.keys()):
        diff = sorted(
            p for p in before[name].keys() & after[name].keys() if before[name][p] != after[name][p]
        )
        changed += len(diff)
        print(
            f"{name}: {len(diff)} of {len(before[name])} pages differ"
            + "".join(f"\n  {p}" for p in diff[:20])
        )
    return changed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--out", type=Path, help="write the digests here")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    ap.add_argument("--every", type=int, default=1, help="each set's every Nth page (default: all)")
    ap.add_argument(
        "--sets", default="", help="comma-separated set names (default: every set with a docs folder)"
    )
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    if args.compare:
        before, after = (json.loads(p.read_text()) for p in args.compare)
        sys.exit(1 if compare(before, after) else 0)
    if args.out is None:
        ap.error("give --out FILE or --compare BEFORE AFTER")
    names = [s for s in args.sets.split(",") if s] or [
        p.stem for p in question_files.set_files() if cm.questions_docs(p).is_dir()
    ]
    args.out.write_text(json.dumps(digests(names, args.every, args.workers)))


if __name__ == "__main__":
    main()
