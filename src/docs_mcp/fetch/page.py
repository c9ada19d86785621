"""A fetched page as the fetch stage hands it on: decoded text, its kind, and what a refresh needs."""

from __future__ import annotations

from dataclasses import dataclass

from docs_mcp.fetch.sources import Location


@dataclass(frozen=True)
class RawPage:
    """A fetched body, decoded, with what a conditional refresh needs."""

    location: Location
    text: str
    kind: str  # "html" | "markdown"
    etag: str = ""
    last_modified: str = ""
    fetched_at: float = 0.0
    not_modified: bool = False
