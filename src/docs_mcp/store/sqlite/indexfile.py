"""The index file on disk: damage checks, moving a damaged file aside, opening with recovery."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from docs_mcp.errors import IndexDamaged, IndexUnavailable, IndexVersionError
from docs_mcp.store.sqlite.files import damage, move_aside
from docs_mcp.store.sqlite.store import SiteIndex


@dataclass(frozen=True)
class Opened:
    """The index a process can use (None: none can be used here), and what to tell the user about it."""

    index: SiteIndex | None
    #: One line for stderr: a damaged file moved aside, or why there is no index ("" when all is well).
    notice: str = ""
    #: A damaged index was found (and moved aside: the index starts empty and is rebuilt).
    damaged: bool = False


def open_index(path: Path, fresh_seconds: float = 7 * 86400) -> Opened:
    """Open the index; a damaged file is moved aside and a new one started, any other problem reported."""
    try:
        why = damage(path)
        if why:
            raise IndexDamaged(f"the site index {path} is damaged: {why}")
        return Opened(SiteIndex(path, fresh_seconds))
    except IndexDamaged as exc:
        damaged = exc
    except (IndexUnavailable, IndexVersionError) as exc:
        return Opened(None, str(exc))
    try:
        aside = f"moved aside to {move_aside(path).name}"
    except FileNotFoundError:  # another process moved it first
        aside = "moved aside by another process"
    except OSError as exc:
        return Opened(None, f"{damaged}; it cannot be moved aside ({exc.strerror or exc})", True)
    try:
        index = SiteIndex(path, fresh_seconds)
    except (IndexUnavailable, IndexVersionError) as exc:
        return Opened(None, f"{damaged}; {aside}, but no new index can be made: {exc}", True)
    return Opened(index, f"{damaged}; {aside}, and a new one is built", True)
