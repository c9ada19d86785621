"""The README and docs/ say what the code does: figures, defaults, module paths and CI's commands are read
from the code and the repository here, so a change that makes a sentence false fails this test."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from docs_mcp import http_settings, settings
from docs_mcp.settings import Settings
from docs_mcp.tools import specs

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))
import question_files  # noqa: E402  (benchmarks/ is a folder of scripts, not a package)

README = (REPO / "README.md").read_text(encoding="utf-8")
DOCS = {p.name: p.read_text(encoding="utf-8") for p in (REPO / "docs").glob("*.md")}
CI = (REPO / ".ci" / "run").read_text(encoding="utf-8")
#: Where a path in the docs may start: the repository, the package (how-it-works names modules so), and
#: benchmarks/ (its docs name its scripts).
BASES = (REPO, REPO / "src" / "docs_mcp", REPO / "benchmarks", *(REPO / "benchmarks").glob("*/"))
#: Backticked names ending in .py that are not files: Sphinx's `dl.py` is a CSS selector (dl class="py").
NOT_FILES = {"dl.py"}


def one_line(text: str) -> str:
    """Markdown prose with its line breaks (and the indentation of list items) as single spaces."""
    return re.sub(r"\s*\n\s*", " ", text)


def ci_commands() -> list[str]:
    """The commands .ci/run runs after setting up its venv: the lint and the test command."""
    lines = [x.strip() for x in CI.splitlines()]
    return [x for x in lines if x.split(" ", 1)[0] in ("ruff", "pytest")]


def test_every_question_set_is_listed_with_its_question_count():
    listed = {
        name: int(count)
        for name, count in re.findall(r"^\s*\| `([\w.-]+\.json)` \|[^|\n]*\| (\d+) \|", README, re.M)
    }
    sets = {
        p.name: len(json.loads(p.read_text(encoding="utf-8"))["questions"])
        for p in question_files.set_files()  # not python-terse.json, Python's id → terse map
    }
    assert listed == sets


def test_the_readme_says_which_commands_ci_runs():
    prose = one_line(README)
    [sentence] = [s for s in re.split(r"(?<=\.) ", prose) if s.startswith("CI (`.ci/run`)")]
    said = [c for c in re.findall(r"`([^`]+)`", sentence) if c != ".ci/run"]
    assert said == ci_commands()  # the long tests' run, then the lint
    assert "the two commands above exactly as written" in sentence and "the uv route" in sentence
    assert "nothing beside it" in sentence


def test_ci_runs_the_readme_quick_start_as_written_first_in_a_clone_with_nothing_beside_it():
    quick_start = README.split("## Quick start", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    printed = subprocess.run(["bash", str(REPO / ".ci" / "quick-start")], capture_output=True, text=True)
    assert printed.stdout == quick_start and len(quick_start.strip().splitlines()) == 2
    # The second works in a new terminal too, the venv not active: the venv's pytest, not the one on PATH.
    assert quick_start.splitlines()[1].startswith(".venv/bin/pytest")
    # Run first, in a clone of the checkout made in a new temporary folder (no ../shared): nothing but the
    # clone and the extraction come before it.
    commands = [x for x in CI.splitlines() if x.strip() and not x.lstrip().startswith("#")]
    first = next(i for i, x in enumerate(commands) if "$quick_start" in x and x.startswith("bash "))
    before = commands[:first]
    allowed = ("set", "cd", "[", "clone=$(mktemp", "trap", "git", "quick_start=$(bash", "printf")
    assert all(x.split()[0] in allowed for x in before), before
    steps = ["clone=$(mktemp -d)/docslice", 'git clone --quiet . "$clone"', 'cd "$clone"']
    assert [before.index(s) for s in steps] == sorted(before.index(s) for s in steps)
    assert before.index('cd "$clone"') < next(i for i, x in enumerate(before) if x.startswith("quick_start="))


@pytest.mark.parametrize(
    ("where", "phrase"),
    [
        ("README.md", f"capped ({Settings().max_chars:,} characters by default)"),
        ("README.md", f"a {Settings().deadline:g} s deadline per call"),
        ("README.md", f"keeps to {Settings().concurrency} requests at a time per host (`--concurrency`)"),
        ("README.md", f"re-ranks its {settings.SEMANTIC_TOP} best pages"),
        ("README.md", f"(z-scores, weight {settings.SEMANTIC_WEIGHT:g})"),
        ("README.md", f"at least {http_settings.HTTP_TOKEN_MIN_CHARS} characters"),
        ("README.md", f"at most {settings.SOURCE_NAME_MAX} characters"),
        ("how-it-works.md", f"(`--deadline`, {Settings().deadline:g} s per call)"),
        ("how-it-works.md", f"followed by hand ({settings.MAX_REDIRECTS} at most)"),
        ("how-it-works.md", f"limited to {settings.MAX_BODY_BYTES // 2**20} MB while they stream"),
        ("how-it-works.md", f"keeps to {Settings().concurrency} requests per host"),
        (
            "how-it-works.md",
            "heading ×{:g}, defined names ×{:g}, heading path ×{:g}, body ×{:g}".format(
                *(settings.SECTION_WEIGHTS[i] for i in (0, 3, 1, 2))  # columns: title, path, body, names
            ),
        ),
        (
            "how-it-works.md",
            f"cut to {settings.MAX_QUERY_CHARS:,} characters and {settings.MAX_QUERY_TERMS} distinct terms",
        ),
        ("how-it-works.md", f"each of its {settings.SEMANTIC_TOP} best pages' best-section cosine"),
        (
            "how-it-works.md",
            f"`max_results` 1–{settings.MAX_RESULTS}; `max_sections` 1–{settings.MAX_SECTIONS}",
        ),
        ("how-it-works.md", specs.MAX_LENGTH.refusal(-5, Settings().max_chars)),
        (
            "how-it-works.md",
            f"(z-scores, weight {settings.SEMANTIC_WEIGHT:g}, `SEMANTIC_*` in `settings.py`)",
        ),
    ],
)
def test_a_default_quoted_in_the_docs_is_the_codes(where, phrase):
    text = README if where == "README.md" else DOCS[where]
    assert phrase in one_line(text)


def test_the_fuzz_figure_in_reliability_md_is_the_suites():
    fuzz = (REPO / "tests" / "hostile" / "test_fuzz.py").read_text(encoding="utf-8")
    examples, batch = (int(re.search(rf"^{name} = (\d+)", fuzz, re.M)[1]) for name in ("EXAMPLES", "BATCH"))
    assert f"({examples * batch:,} calls per CI run" in one_line(DOCS["reliability.md"])


def test_every_module_path_in_the_docs_exists():
    texts = {"README.md": README, **{f"docs/{k}": v for k, v in DOCS.items()}}
    missing = []
    for where, text in texts.items():
        for path in re.findall(r"`([\w./-]+\.py)`", text):
            if path in NOT_FILES:
                continue
            if not any((base / path).is_file() for base in BASES):
                missing.append(f"{where}: {path}")
    assert missing == []


def test_the_readme_figures_are_the_stored_benchmark_runs_with_their_provenance():
    """The README's figures block is exactly what `benchmarks/readme_figures.py --render` writes from
    benchmarks/figures.json: a figure edited by hand, or one without its command, commit and load, fails."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import readme_figures
    finally:
        sys.path.pop(0)
    store = json.loads((REPO / "benchmarks" / "figures.json").read_text(encoding="utf-8"))
    block = readme_figures.render(store)
    assert block in README
    if "budget" in store:  # the lead figure, the budget curve, pooled from a scoreboard run's files
        block += readme_figures.render_curve(store["budget"])
        assert readme_figures.render_curve(store["budget"]) in README
    for got in store.values():
        assert {"command", "commit", "date", "machine", "load", "values"} <= got.keys()
        command = readme_figures.measuring(got["command"])  # output options (--json, --out) left out
        assert f"`{command}` · {got['commit']}, {got['date']}, load {got['load'][0]}" in block
