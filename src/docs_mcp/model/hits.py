"""What site search returns: a page and its best section (shared by the store, search and the tools)."""

from __future__ import annotations

from dataclasses import dataclass

from docs_mcp.model.section import as_data


@dataclass(frozen=True)
class SearchHit:
    """A page found by site search, pointing at its best section."""

    url: str
    title: str
    section_id: str
    section_path: tuple[str, ...]
    snippet: str
    source: str
    fetched_at: float
    score: float
    #: Other addresses of the same item (one API page re-exported under two module paths).
    also: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        as_data(self, "title", "section_id", "section_path")
