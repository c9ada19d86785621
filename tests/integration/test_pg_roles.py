"""docs/deploy.md's roles, grants and upgrade order, run as written on a real PostgreSQL (issue 45, item 4): only
`docslice migrate` changes the schema, and says so in one line; the crawl job works as a role that can only
read and write rows, a replica as a read-only one; a schema older or newer than the binary is one line
saying what to run."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from docs_mcp.cli.main import main
from docs_mcp.errors import DocsMCPError

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.timeout(180)]
psycopg = pytest.importorskip("psycopg", reason="PostgreSQL tests need the postgres extra (psycopg)")
DEPLOY = Path(__file__).resolve().parents[2] / "docs" / "deploy.md"


def _blocks() -> list[str]:
    """The SQL blocks of deploy.md's 'Privileges' section, in order."""
    section = DEPLOY.read_text().split("## Privileges", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sql\n(.*?)```", section, re.S)


def _as(server, role: str) -> str:
    return server.get_uri(database="docs").replace("postgresql://postgres:@", f"postgresql://{role}:@", 1)


@pytest.fixture
def roles(postgres_server):
    """The roles and the database of deploy.md's first block, made by a superuser; dropped after."""
    admin = postgres_server.get_uri()
    with psycopg.connect(admin, autocommit=True) as conn:
        for statement in filter(str.strip, _blocks()[0].split(";")):
            conn.execute(statement)
    yield
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("DROP DATABASE docs WITH (FORCE)")
        for role in ("docslice_reader", "docslice_crawl", "docslice_owner"):
            conn.execute(f"DROP ROLE {role}")


def _run(*argv: str) -> int:
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    return int(exc.value.code or 0)


def _search(server, site, role: str) -> str:
    from docs_mcp.cli.app import App
    from docs_mcp.cli.arguments import parser

    args = ["serve", "--source", site.url, "--index-url", _as(server, role), "--no-index"]
    app = App(parser().parse_args(args))
    try:
        return asyncio.run(app.tools.search_docs("harmonic constituents fitted by least squares"))
    except DocsMCPError as exc:  # the tool error the server would send
        return str(exc)
    finally:
        asyncio.run(app.tools.aclose())
        app.index.close()


def test_migrate_crawl_and_replicas_run_as_deploy_md_grants_them(postgres_server, roles, site, caplog):
    from docs_mcp.store.postgres.schema import SCHEMA_VERSION

    owner, crawl = _as(postgres_server, "docslice_owner"), _as(postgres_server, "docslice_crawl")
    with psycopg.connect(owner, autocommit=True) as conn:
        for statement in filter(str.strip, _blocks()[1].split(";")):
            conn.execute(statement)
    # The crawl job before any migration: one line naming the command, no table made.
    assert _run("index", "--source", site.url, "--index-url", crawl, "--workers", "1") == 1
    caplog.set_level("INFO", logger="docs_mcp")
    assert _run("migrate", "--index-url", owner) == 0
    lines = [r.getMessage() for r in caplog.records if r.name == "docs_mcp"]
    assert any(
        re.search(rf"migrated the index at \S+ from schema 0 to {SCHEMA_VERSION} in ", x) for x in lines
    )
    assert _run("migrate", "--index-url", owner) == 0  # again: nothing to do, said
    assert f"at schema {SCHEMA_VERSION} already: nothing to migrate" in caplog.records[-1].getMessage()
    assert _run("index", "--source", site.url, "--index-url", crawl, "--workers", "1") == 0
    assert "big-reference.html" in _search(postgres_server, site, "docslice_reader")
    reader = _as(postgres_server, "docslice_reader")
    with (
        psycopg.connect(reader, autocommit=True) as conn,
        pytest.raises(psycopg.errors.InsufficientPrivilege),
    ):
        conn.execute("DELETE FROM pages")
    with psycopg.connect(crawl, autocommit=True) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("CREATE TABLE intruder(x int)")
    # A binary older than the schema, then one newer: each says what to run, in one line.
    with psycopg.connect(owner, autocommit=True) as conn:
        conn.execute("INSERT INTO schema_version VALUES (%s)", (SCHEMA_VERSION + 1,))
    older = _search(postgres_server, site, "docslice_reader")
    assert f"newer docslice (schema {SCHEMA_VERSION + 1}, this version reads {SCHEMA_VERSION})" in older, (
        older
    )
    with psycopg.connect(owner, autocommit=True) as conn:
        conn.execute("DELETE FROM schema_version WHERE version >= %s", (SCHEMA_VERSION,))
    newer = _search(postgres_server, site, "docslice_reader")
    assert (
        f"has schema {SCHEMA_VERSION - 1}, this docslice needs schema {SCHEMA_VERSION}: run `docslice migrate"
        in newer
    )
