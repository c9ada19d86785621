"""Versions of one real site: Debian's Clang 14, 16 and 19 manuals (clang-14-doc, clang-16-doc, clang-19-doc)
as one source with three versions, against the same three roots as three unrelated sources (before issue 46).

Each question belongs to one version: a compiler flag its release notes list as new, or a page only a newer
version has. Asked with that version, the top hit must come from it and show the flag; asked of a version
without the page, the answer must say which version holds it ("not in 14; in 19: …"). The same question asked
of the three unrelated sources (an agent cannot name a version) shows where today's answer comes from.

    nice -n 10 python benchmarks/quality/versions.py [--cache-dir DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import common as cm

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser

VERSIONS = ("14", "16", "19")
ROOT = "/usr/share/doc/clang-{version}/html"
#: (version, question, what the answer must show): the same words asked of each version (its release notes'
#: new flags), then flags one version's release notes list as new. The answer is the top hit's page read with
#: search_in_doc, as an agent's next call does.
SAME = "Which new compiler flags does this release add?"
FLAGS = [
    ("14", SAME, "-fplugin-arg-pluginname-arg"),
    ("16", SAME, "-fcoro-aligned-allocation"),
    ("19", SAME, "-fsanitize=implicit-bitfield-conversion"),
    ("14", "new compiler flag -fminimize-whitespace", "-fminimize-whitespace"),
    ("16", "new compiler flag -fstrict-flex-arrays", "-fstrict-flex-array"),
    ("19", "new flag -fexperimental-modules-reduced-bmi", "-fexperimental-modules-reduced-bmi"),
]
#: (version asked, question, the page it lacks): pages only newer versions have.
MISSING = [
    ("14", "Clang-Repl interactive C++ interpreter", "ClangRepl.html"),
    ("14", "HIP support for AMD GPUs", "HIPSupport.html"),
    ("14", "Standard C++ named modules", "StandardCPlusPlusModules.html"),
]


def app(specs: list[str], cache: Path) -> App:
    return App(parser().parse_args(["serve", *specs, "--cache-dir", str(cache), "--no-index"]), workers=1)


def version_of(url: str) -> str:
    """The Clang version whose folder holds `url` ('?' when none)."""
    return next((v for v in VERSIONS if url.startswith((f"clang@{v}:", f"clang{v}:"))), "?")


def first_hit(text: str) -> tuple[str, str]:
    """(the top hit's address line, the whole hit block) of a search_docs answer."""
    blocks = text.split("\n\n")[1:]
    if not blocks:
        return "", ""
    lines = blocks[0].splitlines()
    return (lines[1].strip() if len(lines) > 1 else ""), blocks[0]


async def run(cache: Path) -> None:
    versioned = app(["--source", f"clang={ROOT}", "--versions", ",".join(VERSIONS)], cache)
    started = time.monotonic()
    await versioned.indexer.run()
    print(f"indexed {versioned.index.page_count()} pages in {time.monotonic() - started:.0f} s", flush=True)
    plain = app([a for v in VERSIONS for a in ("--source", f"clang{v}={ROOT.format(version=v)}")], cache)
    rows, right, before = [], 0, 0
    for version, question, needle in FLAGS:
        text = await versioned.tools.search_docs(question, source="clang", version=version)
        where, _ = first_hit(text)
        url = where.split(" ", 1)[0]
        read = await versioned.tools.search_in_doc(url, question, version=version) if url else ""
        read = read.replace("\xad", "")  # Sphinx breaks long literals with soft hyphens
        ok = f"version {version}" in where and version_of(where) == version and needle in read
        old, _ = first_hit(await plain.tools.search_docs(question))
        right, before = right + ok, before + (version_of(old) == version)
        rows.append([version, question, version_of(where), "yes" if ok else "no", version_of(old)])
    print(
        cm.md_table(["asked", "question", "top hit's version", "answered from it", "before: top hit's"], rows)
    )
    said = 0
    for version, question, page in MISSING:
        text = await versioned.tools.search_docs(question, source="clang", version=version)
        note = next((n for n in text.splitlines()[0].split("; not in ")[1:] if page in n), "")
        said += bool(note)
        print(f"- asked of {version}: {question!r}: " + (f"said 'not in {note}'" if note else "NOT said"))
    print(
        f"\nanswered from the version asked: {right}/{len(FLAGS)} (before, three unrelated sources: top hit "
        f"from that version {before}/{len(FLAGS)}); a page missing in the version said: {said}/{len(MISSING)}"
    )
    for a in (versioned, plain):
        await a.fetcher.aclose()
    print(f"load {', '.join(f'{x:.2f}' for x in os.getloadavg())}; {cm.provenance()}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--cache-dir", type=Path, help="where the index is built (default: a new temporary folder)"
    )
    args = ap.parse_args()
    missing = [v for v in VERSIONS if not Path(ROOT.format(version=v)).is_dir()]
    if missing:
        sys.exit(
            f"needs Debian's clang-{{14,16,19}}-doc: apt-get install {' '.join(f'clang-{v}-doc' for v in missing)}"
        )
    cache = args.cache_dir or Path(tempfile.mkdtemp(prefix="docslice-versions-"))
    asyncio.run(run(cache))


if __name__ == "__main__":
    main()
