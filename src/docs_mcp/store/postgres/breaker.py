"""Which failures of the database pass by themselves (worth a retry), and which are the data's."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import psycopg


def transient(exc: psycopg.Error) -> bool:
    """Whether an error may pass by itself: the connection lost or refused, the server shutting down or
    starting, too many connections; not a limit of the data (a value too long, a disk full)."""
    state = exc.sqlstate or ""
    return not state or state.startswith(("08", "57P")) or state == "53300"
