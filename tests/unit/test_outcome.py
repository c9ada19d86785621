"""A build's stored outcome read back: every field as written, and what a damaged or hostile index holds
read as nothing, never an error later."""

from __future__ import annotations

import json
import time

import pytest

from docs_mcp.model.progress import Outcome

pytestmark = pytest.mark.timeout(30)


def test_an_outcome_reads_back_as_written():
    written = Outcome(time.time(), reached=True, fetched=3, complete=False, unwritten=2, store_error="full")
    assert Outcome.from_json(written.to_json()) == written
    assert "could not store 2 pages: full" in written.missing_note()


def test_a_field_of_the_wrong_type_is_left_at_its_default():
    text = json.dumps(
        {"at": 1.0, "reached": True, "finished": False, "lease": "soon", "holder": 7, "fetched": "3"}
    )
    read = Outcome.from_json(text)
    assert read is not None and (read.lease, read.holder, read.fetched) == (0.0, "", 0)
    assert "has not finished" in read.missing_note()  # its lease unreadable: taken as run out


@pytest.mark.parametrize(
    "text", ["[1, 2]", '"build"', "7", "{}", '{"at": "now", "reached": true}', "{", None]
)
def test_what_is_not_an_outcome_reads_as_none(text):
    assert Outcome.from_json(text) is None
