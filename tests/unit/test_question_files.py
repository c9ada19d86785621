"""Question files: every question has a terse form (Python's through its id → terse map), the loader merges the
map, and check_questions.py holds the terse form to the rules of the query."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import SITE, SITE_QUESTIONS

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))
import question_files  # noqa: E402
from quality import check_questions  # noqa: E402  (benchmarks/ is a folder of scripts, not a package)

SHARED_PYTHON = next(
    (
        p
        for p in (b / "shared" / "bench" / "questions" / "python.json" for b in REPO.parents[:2])
        if p.is_file()
    ),
    None,
)


def test_the_terse_map_is_no_question_set():
    names = [p.name for p in question_files.set_files()]
    assert "python-terse.json" not in names and "sqlite.json" in names


def test_every_question_of_every_set_has_a_terse_form_of_two_to_six_words_without_a_needle():
    files = question_files.set_files() + ([SHARED_PYTHON] if SHARED_PYTHON else [])
    for path in files:
        _, questions = question_files.read(path)
        for q in questions:
            terse = q.get("terse", "")
            assert 2 <= len(terse.split()) <= 6, (path.name, q["id"], terse)
            said = check_questions.normalise(terse)
            assert not any(check_questions.normalise(n).strip() in said for n in q["needles"]), q["id"]


@pytest.mark.skipif(SHARED_PYTHON is None, reason="Python's shared set is not beside this clone")
def test_pythons_terse_forms_come_from_the_map_and_cover_the_set_exactly():
    raw = json.loads(SHARED_PYTHON.read_text(encoding="utf-8"))
    terse = json.loads((question_files.SETS_DIR / "python-terse.json").read_text(encoding="utf-8"))
    assert not any("terse" in q for q in raw)  # the shared file is read-only: the forms live in the map
    assert set(terse) == {q["id"] for q in raw}
    _, merged = question_files.read(SHARED_PYTHON)
    assert [q["terse"] for q in merged] == [terse[q["id"]] for q in raw]


def test_merging_keeps_a_form_written_in_the_question_and_rejects_a_stale_map():
    questions = [{"id": "a-1", "terse": "own form"}, {"id": "a-2"}]
    question_files.merge_terse(questions, {"a-1": "map form", "a-2": "from the map"})
    assert [q["terse"] for q in questions] == ["own form", "from the map"]
    with pytest.raises(ValueError, match="a-9"):
        question_files.merge_terse(questions, {"a-9": "no such question"})


def test_a_question_asked_in_its_terse_form_searches_with_the_terse_text():
    q = {"id": "a-1", "query": "how do I do this thing", "terse": "thing how"}
    assert question_files.in_form(q, "terse")["query"] == "thing how"
    assert question_files.in_form(q, "full")["query"] == "how do I do this thing"
    assert question_files.in_form(q, "terse")["form"] == "terse"
    assert question_files.forms("both", "full") == ("full", "terse")
    assert question_files.forms(None, "full") == ("full",)


def question(**changes: object) -> dict:
    """A question over the fixture site that passes every check, with some fields changed."""
    return SITE_QUESTIONS[0] | changes


def check(tmp_path: Path, q: dict) -> check_questions.Report:
    path = tmp_path / "set.json"
    path.write_text(json.dumps({"docs": str(SITE), "questions": [q]}), encoding="utf-8")
    return check_questions.check_file(path)


def test_check_questions_passes_a_terse_form_that_keeps_the_rules(tmp_path):
    rep = check(tmp_path, question())
    assert rep.failures == [] and rep.warnings == []


def test_check_questions_fails_a_question_without_a_terse_form(tmp_path):
    q = question()
    del q["terse"]
    assert [f for f in check(tmp_path, q).failures if "no terse form" in f] != []


@pytest.mark.parametrize(
    ("terse", "warning"),
    [
        ("naive timestamps are interpreted as UTC", "the terse contains needle"),
        ("timestamps", "has 1 words (want 2-6)"),
        ("loading data tz", "contains the section heading 'Loading data'"),
        ("Loading data", "the terse form is the section heading"),
    ],
)
def test_check_questions_warns_about_a_terse_form_that_breaks_a_rule(tmp_path, terse, warning):
    warnings = check(tmp_path, question(terse=terse)).warnings
    assert any(warning in w for w in warnings), warnings
