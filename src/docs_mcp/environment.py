"""The environment's settings: $DOCSLICE_<NAME>, the names before 0.5 ($DOCS_MCP_<NAME>) still read, and the
cache folder (an existing `docs-mcp` one keeps being used)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

PREFIX = "DOCSLICE_"
#: The names before the command was called docslice: read when the new one is unset.
OLD_PREFIX = "DOCS_MCP_"
#: The user cache folder's name, and the one before 0.5 (still used while it holds the index and the new does not).
CACHE_NAME, OLD_CACHE_NAME = "docslice", "docs-mcp"


def env(name: str, default: str | None = None, environ: Mapping[str, str] = os.environ) -> str | None:
    """$DOCSLICE_<name>, else $DOCS_MCP_<name>, else `default`."""
    for prefix in (PREFIX, OLD_PREFIX):
        value = environ.get(prefix + name)
        if value is not None:
            return value
    return default


def default_cache_dir() -> Path:
    """Where the index lives: $DOCSLICE_CACHE_DIR, else the user cache dir's `docslice` (its `docs-mcp`
    while that one holds an index and `docslice` does not: an upgrade keeps its index)."""
    given = env("CACHE_DIR")
    if given:
        return Path(given).expanduser()
    import platformdirs

    new, old = (Path(platformdirs.user_cache_dir(n)) for n in (CACHE_NAME, OLD_CACHE_NAME))
    return old if (old / "index.sqlite").exists() and not (new / "index.sqlite").exists() else new


def default_index_url() -> str | None:
    """A shared PostgreSQL index: $DOCSLICE_INDEX_URL (None: the SQLite file in the cache dir)."""
    return env("INDEX_URL") or None
