"""Which engine holds a process's index: a PostgreSQL database when an index URL is given, else the SQLite
file in the cache folder."""

from __future__ import annotations

from docs_mcp.errors import IndexUnavailable, IndexVersionError
from docs_mcp.settings import Settings, default_cache_dir
from docs_mcp.store.sqlite.indexfile import Opened, open_index


def open_store(settings: Settings, serving: bool = False) -> Opened:
    """The index the settings name, opened (a problem reported in `notice`, the index then None). A server
    (`serving`) opens a PostgreSQL index even while the database is down, and uses it once it is up."""
    fresh = settings.index_ttl_days * 86400
    if not settings.index_url:
        return open_index((settings.cache_dir or default_cache_dir()) / "index.sqlite", fresh)
    try:
        from docs_mcp.store.postgres.store import open_postgres
    except ImportError as exc:
        return Opened(
            None,
            f"--index-url needs the postgres extra (pip install 'docslice[postgres]'): {exc}",
        )
    try:
        return Opened(open_postgres(settings.index_url, fresh, lazy=serving))
    except (IndexUnavailable, IndexVersionError) as exc:
        return Opened(None, str(exc))
