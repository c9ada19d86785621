"""A build lock that survives a PostgreSQL restart (issue 34, item 6): a restart ends every session, and an
advisory lock with its session. The build notices: it takes the lock again when it is free, and stops when
another job took it meanwhile, so two jobs never crawl side by side. A killed session stands for the restart
here (the same loss, on the test session's shared server)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.postgres
ROOT = "https://docs.example/"


def end_lock_sessions(url: str) -> int:
    """Terminate the sessions holding advisory locks, as a restart would; how many there were."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        # With a timeout the call waits until each session has ended and its locks are gone, as they are when a
        # restart is over (without one it only signals, and a busy machine still shows the lock held).
        sql = "SELECT pg_terminate_backend(pid, 30000) FROM pg_locks WHERE locktype = 'advisory' AND granted"
        return len(conn.execute(sql).fetchall())


@pytest.fixture
def store(postgres_url):
    from docs_mcp.store.postgres.store import open_postgres

    s = open_postgres(postgres_url, 3600)
    yield s
    s.pool.close()


def test_a_lock_lost_with_its_session_is_taken_again_when_free(store, postgres_url):
    lock = store.build_lock(ROOT)
    assert lock.try_acquire() and lock.held()
    assert end_lock_sessions(postgres_url) == 1
    assert lock.held()  # taken again, on a new connection
    second = store.build_lock(ROOT)
    assert not second.try_acquire()  # a job started after the restart waits, as before it
    lock.release()
    assert second.try_acquire()
    second.release()


def test_a_lock_lost_and_taken_by_another_job_is_not_held_any_more(store, postgres_url):
    lock = store.build_lock(ROOT)
    assert lock.try_acquire()
    end_lock_sessions(postgres_url)
    second = store.build_lock(ROOT)
    assert second.try_acquire()  # the other job, started while the first's session was gone
    assert not lock.held()  # the first one learns it: its build stops
    assert not lock.held()
    second.release()
    lock.release()  # nothing held: a no-op


def test_a_running_build_whose_lock_another_job_took_stops_and_says_why(store, postgres_url, monkeypatch):
    import asyncio
    from types import SimpleNamespace

    from docs_mcp.crawl import indexer
    from docs_mcp.model.progress import Progress

    monkeypatch.setattr(indexer, "LOCK_CHECK_SECONDS", 0.05)
    lock, second = store.build_lock(ROOT), store.build_lock(ROOT)
    assert lock.try_acquire()
    build, prog = SimpleNamespace(stopped=False), Progress("docs", ROOT)  # what _keep_lock reads of them

    async def run() -> None:
        watch = asyncio.create_task(indexer._keep_lock(lock, build, prog))
        await asyncio.sleep(0.2)
        assert not build.stopped  # held all along
        watch.cancel()
        end_lock_sessions(postgres_url)  # (no check runs now: the other job surely comes first)
        assert second.try_acquire()
        await asyncio.wait_for(indexer._keep_lock(lock, build, prog), 10)

    asyncio.run(run())
    assert build.stopped and "the build lock was lost" in prog.errors[-1]
    second.release()
