"""A session's memory stays bounded: sessions per process, idle time, sections and spans per session."""

from __future__ import annotations

from docs_mcp.model.seen import SESSION_SECTIONS, SESSION_SPANS, Seen
from docs_mcp.tools.session import LocalSessions


def test_the_least_recently_used_session_is_forgotten_past_the_cap():
    sessions = LocalSessions(cap=2, ttl=3600)
    for n in range(3):
        sessions.save(f"s{n}", Seen(calls=n + 1))
    assert [sessions.load(f"s{n}").calls for n in range(3)] == [0, 2, 3]
    assert len(sessions) == 2


def test_an_idle_session_is_forgotten_after_its_time_to_live():
    sessions = LocalSessions(cap=10, ttl=0)
    sessions.save("s", Seen(calls=4))
    assert sessions.load("s").calls == 0


def test_a_session_remembers_a_bounded_number_of_sections_and_spans():
    seen = Seen(calls=1)
    for n in range(SESSION_SECTIONS + 5):
        seen.record(f"page#{n}", 0, 10)
    assert len(seen.spans) == SESSION_SECTIONS and "page#0" not in seen.spans
    for n in range(SESSION_SPANS + 5):
        seen.calls = n + 1
        seen.record("long#x", n * 100, n * 100 + 50)
    assert len(seen.spans["long#x"]) == SESSION_SPANS


def test_a_run_shown_by_two_calls_names_the_one_that_showed_most_of_it():
    seen = Seen(calls=1)
    seen.record("p#s", 0, 300)
    seen.calls = 2
    seen.record("p#s", 200, 1000)
    assert seen.covered("p#s", 0, 1000) == 2
    assert seen.shown_in("p#s", 0, 1000) == [[0, 300, 1], [300, 1000, 2]]
    assert seen.covered("p#s", 0, 2000) is None
    assert Seen.loads(seen.dumps()) == seen
