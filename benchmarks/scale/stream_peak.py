"""Memory and CPU of one very large page's stream (store/pagestream.py): packing it, reading its last section,
unpacking it whole, each step in a process of its own (its peak RSS over the texts already held).

Usage: python benchmarks/scale/stream_peak.py [--mb 74] [--sections 2000]
Run it in two checkouts (main's and a branch's) to compare: it reads the `src` beside it. Prints the load.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))

from docs_mcp.store.pagestream import pack_page, places_at, unpack_page  # noqa: E402

STEPS = ("pack", "last section", "whole page")


def page(mb: float, sections: int) -> tuple[list[str], list[str]]:
    """Paths and texts of about `mb` MB of characters (words with an accent: UTF-8 is longer than the text)."""
    rnd = random.Random(5)
    words = [f"w{i}é" for i in range(20_000)]
    per = max(1, int(mb * 1e6 / sections / 7))  # a word and its space: ~7 characters
    return [f"Manual > Part {i}" for i in range(sections)], [
        " ".join(rnd.choices(words, k=per)) for _ in range(sections)
    ]


def step(name: str, mb: float, sections: int, stored: Path) -> str:
    """One step's CPU and peak RSS, measured in this process (the reads on the stream the pack step stored)."""
    if name == "pack":
        paths, texts = page(mb, sections)
        size = sum(len(t.encode()) for t in texts)
    else:
        blob = stored.read_bytes()
    base, began = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, time.process_time()
    if name == "pack":
        blob = pack_page(paths, texts, [], b"{}")
    elif name == "last section":
        places_at(blob, [sections - 1])
    else:
        unpack_page(blob)
    cpu, peak = time.process_time() - began, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base
    if name != "pack":
        return f"{name:12}: {cpu:5.2f} s CPU, peak RSS +{peak / 1024:.0f} MB"
    stored.write_bytes(blob)
    return f"{name:12}: {cpu:5.2f} s CPU, peak RSS +{peak / 1024:.0f} MB, texts {size / 1e6:.0f} MB in UTF-8, stream {len(blob) / 1e6:.1f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=74.0)
    parser.add_argument("--sections", type=int, default=2000)
    parser.add_argument("--step", choices=STEPS, help=argparse.SUPPRESS)  # one step, in a child process
    parser.add_argument("--stored", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.step:
        print(step(args.step, args.mb, args.sections, args.stored))
        return
    print(f"{REPO} · load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in STEPS:
            cmd = [sys.executable, __file__, "--mb", str(args.mb), "--sections", str(args.sections)]
            cmd += ["--step", name, "--stored", str(Path(tmp) / "stream")]
            print(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip())
    print(f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
