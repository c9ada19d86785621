"""The store's boundary: all SQL lives in store/, and the SQLite store implements the whole interface the
upper layers use (so another engine can be written against the same protocols)."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from docs_mcp.store.interface import Reads, Store
from docs_mcp.store.sqlite.reads import SQLiteReads
from docs_mcp.store.sqlite.store import SiteIndex

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "docs_mcp"


def _members(protocol: type) -> list[str]:
    return sorted(n for n, v in vars(protocol).items() if callable(v) and not n.startswith("_"))


def test_no_module_outside_the_store_imports_sqlite_or_runs_sql():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] == "store":  # the store and its engines (store/postgres/)
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import) and any(a.name == "sqlite3" for a in node.names):
                offenders.append(f"{path.name}: import sqlite3")
            elif isinstance(node, ast.ImportFrom) and node.module == "sqlite3":
                offenders.append(f"{path.name}: from sqlite3")
            elif isinstance(node, ast.Attribute) and node.attr in ("execute", "executemany", "executescript"):
                offenders.append(f"{path.name}:{node.lineno}: .{node.attr}")
    assert offenders == []


def _engines() -> list[tuple[type, type]]:
    engines = [(Store, SiteIndex), (Reads, SQLiteReads)]
    try:
        from docs_mcp.store.postgres.reads import PostgresReads
        from docs_mcp.store.postgres.store import PostgresStore
    except ImportError:  # without the postgres extra
        return engines
    return [*engines, (Store, PostgresStore), (Reads, PostgresReads)]


def test_each_store_has_every_read_and_write_of_the_interface_with_its_signature():
    for protocol, implementation in _engines():
        assert _members(protocol), protocol
        for name in _members(protocol):
            wanted = inspect.signature(getattr(protocol, name))
            got = inspect.signature(getattr(implementation, name))
            assert list(got.parameters) == list(wanted.parameters), (implementation.__name__, name)


def test_the_sqlite_store_names_where_it_lives(tmp_path):
    index = SiteIndex(tmp_path / "index.sqlite")
    try:
        assert index.location == str(tmp_path / "index.sqlite")
        with index.reading() as reads, index.reading() as inner:
            assert inner is reads  # a nested block reads the outer block's snapshot
            assert reads.page_count() == 0
    finally:
        index.close()
