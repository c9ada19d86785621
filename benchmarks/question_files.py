"""Reading a question file: its questions with their terse forms, and which files in a folder are sets.

No docs_mcp import, so check_questions.py (which checks files without running docslice) reads them the same
way as the benchmark scripts. A set whose file we may not edit (Python's, shared read-only beside the clone)
takes its terse forms from `benchmarks/questions/<stem>-terse.json`, a map from question id to terse form.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SETS_DIR = Path(__file__).resolve().parent / "questions"
#: A file `<stem>-terse.json` in SETS_DIR holds the terse forms of the set `<stem>.json`; it is no set itself.
TERSE_SUFFIX = "-terse"
#: The two ways a question is asked: as written (`query`) and as an agent types into a search box (`terse`).
FORMS = ("full", "terse")


def read(path: Path) -> tuple[Any, list[dict[str, Any]]]:
    """The file's JSON and its questions (a JSON list, or {"questions": [...]}), terse forms merged in."""
    data = json.loads(path.read_text(encoding="utf-8"))
    questions = data["questions"] if isinstance(data, dict) else data
    merge_terse(questions, terse_map(path))
    return data, questions


def terse_map_path(path: Path) -> Path:
    """Where the id → terse map for the set in `path` lives (whether or not it exists)."""
    return SETS_DIR / f"{path.stem}{TERSE_SUFFIX}.json"


def terse_map(path: Path) -> dict[str, str]:
    """The id → terse map for the set in `path`; empty when it has none."""
    p = terse_map_path(path)
    return json.loads(p.read_text(encoding="utf-8")) if p.is_file() else {}


def merge_terse(questions: list[dict[str, Any]], terse: dict[str, str]) -> None:
    """Give each question its terse form from the map (a form written in the question itself wins).

    A map id that names no question is an error: the map has gone stale against its set.
    """
    ids = {q.get("id") for q in questions}
    stale = sorted(set(terse) - ids)
    if stale:
        raise ValueError(f"terse forms for ids not in the set: {', '.join(stale[:5])}")
    for q in questions:
        if q.get("id") in terse:
            q.setdefault("terse", terse[q["id"]])


def is_set(path: Path) -> bool:
    """Whether a JSON file in the questions folder is a question set (not a terse map)."""
    return path.suffix == ".json" and not path.stem.endswith(TERSE_SUFFIX)


def set_files(folder: Path = SETS_DIR) -> list[Path]:
    """The question sets in a folder, by name."""
    return sorted(p for p in folder.glob("*.json") if is_set(p))


def in_form(q: dict[str, Any], form: str) -> dict[str, Any]:
    """The question asked in one form: its `query` is the terse form for `terse`; `form` names which."""
    if form not in FORMS:
        raise ValueError(f"unknown form {form!r}; choose from {', '.join(FORMS)}")
    if form == "terse" and not q.get("terse"):
        raise SystemExit(
            f"error: question {q['id']} has no terse form (see benchmarks/quality/check_questions.py)"
        )
    return {**q, "query": q["terse"] if form == "terse" else q["query"], "form": form}


def forms(choice: str | None, default: str) -> tuple[str, ...]:
    """The forms a `--form full|terse|both` choice runs (None: the default)."""
    choice = choice or default
    return FORMS if choice == "both" else (choice,)
