"""Shared helpers for the benchmark scripts: loopback docs server, model view, questions, needle matching."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import question_files  # no docs_mcp import: check_questions.py reads question files through it too
from question_files import FORMS, forms, in_form  # noqa: F401  (the scripts' one import of them)

REPO_ROOT = Path(__file__).resolve().parents[1]
PY = "python"  # as commands are shown in reports; they run with this interpreter
SRC_DIR = REPO_ROOT / "src"
DOCS_DIR = Path("/usr/share/doc/python3.11/html")
#: Python's shared set lives beside the clone (CI: ../shared); a git worktree in a folder of worktrees
#: finds it one level further up.
_SHARED = [base / "shared" / "bench" / "questions" / "python.json" for base in REPO_ROOT.parents[:2]]
DEFAULT_QUESTIONS = next((p for p in _SHARED if p.is_file()), _SHARED[0])
BENCH_MD = REPO_ROOT / "docs" / "benchmarks.md"

if str(SRC_DIR) not in sys.path:  # `python benchmarks/X.py` works without PYTHONPATH too
    sys.path.insert(0, str(SRC_DIR))


# --- the docs, served on loopback ----------------------------------------------------------------
def require_docs(directory: Path = DOCS_DIR) -> Path:
    """Exit 2 with an install hint when the Python HTML docs are missing."""
    if not (directory / "library" / "os.html").is_file():
        print(
            f"error: the Python 3.11 HTML docs are not at {directory}.\n"
            "Install them with:  sudo apt-get install python3-doc",
            file=sys.stderr,
        )
        raise SystemExit(2)
    return directory


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def docs_server(
    directory: Path = DOCS_DIR, timeout: float = 10.0, check: bool = True, port: int | None = None
) -> Iterator[str]:
    """Serve `directory` with http.server on loopback (on `port`, else a free one); yields the root URL and
    stops the server on exit."""
    if check and directory == DOCS_DIR:
        require_docs(directory)
    elif check and not directory.is_dir():
        raise SystemExit(f"error: no docs folder at {directory}")
    port = port or free_port()
    cmd = [
        sys.executable,
        "-m",
        "http.server",
        str(port),
        "--bind",
        "127.0.0.1",
        "--directory",
        str(directory),
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    root = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(root, timeout=1) as resp:
                    resp.read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"docs server on port {port} did not start") from None
                time.sleep(0.05)
        yield root
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# --- what the model sees --------------------------------------------------------------------------


from docs_mcp.cli.measure import model_view  # noqa: E402, F401  (one definition of what the model sees)


def make_tools(root: str) -> Any:
    """A fresh DocsTools over one source root with default settings."""
    from docs_mcp.fetch.sources import SourceSet
    from docs_mcp.settings import Settings
    from docs_mcp.tools.docs import DocsTools

    return DocsTools(SourceSet.from_specs([root]), Settings())


# --- questions ------------------------------------------------------------------------------------
def load_questions(path: Path | str | None = None, limit: int | None = None) -> list[dict[str, Any]]:
    """The benchmark questions (a JSON list, or {"questions": [...]}) with their terse forms, optionally the
    first `limit`."""
    p = Path(path) if path else DEFAULT_QUESTIONS
    if not p.is_file():
        print(f"error: questions file not found: {p} (pass --questions PATH)", file=sys.stderr)
        raise SystemExit(2)
    _, questions = question_files.read(p)
    return questions[:limit] if limit else questions


HALVES = ("tune", "validate")


def of_half(questions: list[dict[str, Any]], which: str | None) -> list[dict[str, Any]]:
    """The questions of one half (`tune`, `validate`), or all of them when `which` is None."""
    return [q for q in questions if which in (None, half(q))]


def half(q: dict[str, Any]) -> str:
    """A question's half of its set: even ids (`py-002`) are for tuning, odd ones (`py-001`) for validation.

    Decide on the tuning half; the validation half only reports whether the decision carried over.
    """
    digits = "".join(ch for ch in q["id"] if ch.isdigit())
    return "tune" if digits and int(digits) % 2 == 0 else "validate"


def questions_docs(path: Path | str | None = None) -> Path:
    """The docs folder a question file is about (its "docs" key); the Python 3.11 docs by default."""
    p = Path(path) if path else DEFAULT_QUESTIONS
    data = json.loads(p.read_text(encoding="utf-8"))
    return Path(data["docs"]) if isinstance(data, dict) and data.get("docs") else DOCS_DIR


def site_name(docs: Path) -> str | None:
    """None for the Python 3.11 docs; else the docs folder's name (its parent's for `…/html` or `…/api`)."""
    if docs == DOCS_DIR:
        return None
    return docs.parent.name if docs.name in ("html", "api") else docs.name


def add_common_args(parser: argparse.ArgumentParser) -> None:
    """--questions PATH and --limit N."""
    parser.add_argument("--questions", default=str(DEFAULT_QUESTIONS), help="questions JSON file")
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")


# --- needle matching ------------------------------------------------------------------------------
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_DROP = str.maketrans("", "", "`*_[]()#>|\\")
_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    """Lowercase, links to [text], drop `*_[]()#>|\\ and backticks, collapse whitespace."""
    text = _LINK.sub(r"[\1]", text.lower())
    return _SPACE.sub(" ", text.translate(_DROP))


def found(text: str, needles: Sequence[str]) -> bool:
    """Whether any needle occurs in the text, both normalised."""
    hay = normalise(text)
    wanted = [normalise(n).strip() for n in needles]
    return any(w in hay for w in wanted if w)


# --- numbers and tables ---------------------------------------------------------------------------
_RESULT_URL = re.compile(r"^\s+(https?://\S+)", re.M)


def result_urls(search_docs_text: str) -> list[str]:
    """The page URLs of a search_docs answer, in rank order, without their #section."""
    return [m.group(1).split("#", 1)[0] for m in _RESULT_URL.finditer(search_docs_text)]


def same_page(url: str, page: str) -> bool:
    """Whether a served URL is a question's gold page: its path ends with the page (`--scale` serves copies
    under `copyN/`), a directory URL `dir/` counting as `dir/index.html`."""
    path = urlsplit(url).path
    if path.endswith("/"):
        path += "index.html"
    return ("/" + path.lstrip("/")).endswith("/" + page)


def median(values: Sequence[float]) -> float:
    """Median, NaN for no values."""
    return statistics.median(values) if values else float("nan")


def p95(values: Sequence[float]) -> float:
    """95th percentile (nearest rank)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(0.95 * len(ordered) + 0.5) - 1))]


def md_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub markdown table with columns padded for reading in a terminal."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    right = [all(_numeric(r[i]) for r in cells[1:]) and len(cells) > 1 for i in range(len(headers))]

    def line(r: list[str]) -> str:
        """One padded row."""
        padded = (c.rjust(w) if rj else c.ljust(w) for c, w, rj in zip(r, widths, right, strict=True))
        return "| " + " | ".join(padded) + " |"

    rules = (("-" * (w + 1) + ":") if rj else ("-" * (w + 2)) for w, rj in zip(widths, right, strict=True))
    sep = "|" + "|".join(rules) + "|"
    return "\n".join([line(cells[0]), sep, *(line(r) for r in cells[1:])])


def _numeric(cell: str) -> bool:
    """Whether a table cell reads as a number (for right alignment)."""
    return bool(re.fullmatch(r"[-+]?[\d,]*\.?\d+\s*(%|ms|s|×)?|n/a|—|-", cell.strip()))


def commit() -> str:
    """The code measured: `git describe --always --dirty` of this checkout ('unknown' outside git)."""
    try:
        head = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "describe", "--always", "--dirty"], capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        head = ""
    return head or "unknown"


def run_record(command: str, load_before: float) -> dict[str, Any]:
    """Where a figure came from: its command, the commit, date and machine, and the 1-min load before → now."""
    return {
        "command": command,
        "commit": commit(),
        "date": datetime.date.today().isoformat(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "load": [round(load_before, 1), round(os.getloadavg()[0], 1)],
    }


def provenance() -> str:
    """The code measured and the machine's load, for a report's header: 'commit abc1234, load average …'."""
    load = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"commit {commit()}, load average {load} (1 / 5 / 15 min) at the end"


def replace_section(path: Path, heading: str, body: str) -> None:
    """Write `heading` + body into a markdown file, replacing that '## ' section and keeping the others."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    block = f"{heading}\n\n{body.strip()}\n"
    lines = text.splitlines(keepends=True)
    start = next((i for i, ln in enumerate(lines) if ln.rstrip() == heading), None)
    if start is None:
        new = text.rstrip() + "\n\n" + block
    else:
        end = next((j for j in range(start + 1, len(lines)) if lines[j].startswith("## ")), len(lines))
        tail = "".join(lines[end:])
        new = "".join(lines[:start]) + block + ("\n" + tail if tail else "")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(new, encoding="utf-8")
