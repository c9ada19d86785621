"""A call's deadline stops the work it started on other threads: a search past it ends with the deadline error
instead of running on after the caller was answered (issue 43, item 1)."""

from __future__ import annotations

import pytest

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parse
from docs_mcp.deadline import within
from docs_mcp.errors import DeadlineExceeded

#: An SQLite query counting this far runs for seconds (a stand-in for any slow read of a large index).
LONG_COUNT = 30_000_000


@pytest.fixture
def app(site, site_index_cache):
    app = App(parse(["serve", "--source", site.url, "--cache-dir", str(site_index_cache), "--no-index"]))
    yield app
    app.index.close()


def test_a_site_search_past_its_deadline_stops_with_the_deadline_error(app):
    assert app.search.search("tidal harmonics", 5)  # the same search within its deadline finds pages
    with within(0.0), pytest.raises(DeadlineExceeded) as exc:
        app.search.search("tidal harmonics", 5)
    assert "did not finish within the 0s deadline (--deadline) and was stopped" in str(exc.value)


def test_an_index_query_still_running_at_the_deadline_stops_there(app):
    count = (
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT count(*) FROM c"
    )
    with within(0.2), pytest.raises(DeadlineExceeded), app.index.reading() as reads:
        reads.db.execute(count, (LONG_COUNT,)).fetchone()
    with app.index.reading() as reads:  # the connection serves the next call
        assert reads.db.execute(count, (1000,)).fetchone() == (1000,)


@pytest.mark.postgres
def test_a_postgresql_query_still_running_at_the_deadline_stops_there(postgres_url):
    pytest.importorskip("psycopg", reason="PostgreSQL tests need the postgres extra (psycopg)")
    from docs_mcp.store.postgres.store import PostgresStore

    store = PostgresStore(postgres_url)
    try:
        with within(0.3), pytest.raises(DeadlineExceeded) as exc, store.reading() as reads:
            reads.db.execute("SELECT pg_sleep(20)").fetchone()
        assert "reading the site index did not finish within the 0.3s deadline" in str(exc.value)
        with store.reading() as reads:  # no deadline outside a call; the pool serves the next one
            assert reads.db.execute("SELECT 1").fetchone() == (1,)
    finally:
        store.close()
