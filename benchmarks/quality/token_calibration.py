"""Fit docs_mcp.text.tokens.WEIGHTS against a reference tokenizer and print the estimate's error.

Reference: the Claude tokenizer that the `anthropic` SDK bundled up to 0.34 (`anthropic/tokenizer.json`,
a BPE for earlier Claude models; current models' tokenizers are not public, so this is the closest
offline reference). Needs dev-only extras: `pip install tokenizers numpy` and the docs of
`apt-get install python3-doc`. The wheel is fetched from PyPI into a temporary folder.

Usage: python benchmarks/quality/token_calibration.py
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from docs_mcp.fetch.sources import SourceSet  # noqa: E402
from docs_mcp.settings import Settings  # noqa: E402
from docs_mcp.text.tokens import WEIGHTS, estimate_tokens, features  # noqa: E402
from docs_mcp.tools.docs import DocsTools  # noqa: E402

FIXTURE_PAGES = [
    "sphinx.html",
    "docbook.html",
    "mkdocs.html",
    "docusaurus.html",
    "seed.html",
    "japanese.html",
    "notes.md",
    "big-reference.html",
    "api-3.html",
]
PYTHON_PAGES = [
    "library/os.html",
    "library/asyncio-task.html",
    "tutorial/classes.html",
    "library/re.html",
    "reference/datamodel.html",
    "howto/logging-cookbook.html",
    "library/json.html",
]
WINDOW = 2000


def reference_tokenizer():
    """The bundled Claude tokenizer from the anthropic 0.34.2 wheel."""
    from tokenizers import Tokenizer

    tmp = Path(tempfile.mkdtemp())
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "anthropic==0.34.2", "-d", str(tmp)],
        check=True,
    )
    wheel = next(tmp.glob("anthropic-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        z.extract("anthropic/tokenizer.json", tmp)
    return Tokenizer.from_file(str(tmp / "anthropic" / "tokenizer.json"))


async def corpus() -> list[str]:
    """2,000-char windows of real markdown as the tools return it, code on and off."""
    texts = []
    for root, pages, limit in (
        (ROOT / "fixtures" / "site", FIXTURE_PAGES, 40_000),
        (Path("/usr/share/doc/python3.11/html"), PYTHON_PAGES, 60_000),
    ):
        if not root.is_dir():
            print(f"skipping {root} (missing)")
            continue
        tools = DocsTools(SourceSet.from_specs([str(root)]), Settings())
        for page in pages:
            _, doc = await tools.document(page)
            for code in (False, True):
                md = doc.markdown(code)
                texts += [md[i : i + WINDOW] for i in range(0, min(len(md), limit), WINDOW)]
    return texts


def main() -> None:
    import numpy as np

    tok = reference_tokenizer()
    texts = asyncio.run(corpus())
    y = np.array([len(tok.encode(t).ids) for t in texts], dtype=float)
    x = np.array([features(t) for t in texts], dtype=float)
    fitted, *_ = np.linalg.lstsq(x, y, rcond=None)

    def report(name: str, pred) -> None:
        err = np.abs(pred - y) / y * 100
        print(
            f"{name:<28} mean abs error {err.mean():5.1f}%  p90 {np.percentile(err, 90):5.1f}%  max {err.max():5.1f}%"
        )

    print(f"{len(texts)} windows of {WINDOW} chars; reference tokens: {int(y.sum()):,}")
    print("fitted weights:", tuple(round(float(w), 2) for w in fitted))
    report("estimate (shipped WEIGHTS)", np.array([estimate_tokens(t) for t in texts]))
    report("estimate (fitted now)", x @ fitted)
    report("chars / 4", np.array([len(t) / 4 for t in texts]))
    if tuple(round(float(w), 2) for w in fitted) != tuple(round(w, 2) for w in WEIGHTS):
        print("note: shipped WEIGHTS differ from this fit; update docs_mcp/tokens.py if the corpus changed")


if __name__ == "__main__":
    main()
