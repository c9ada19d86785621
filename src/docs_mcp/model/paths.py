"""Where each section of a page sits: its heading path, for all sections in one pass."""

from __future__ import annotations

from collections.abc import Sequence

from docs_mcp.model.section import Section


def heading_paths(sections: Sequence[Section]) -> list[tuple[str, ...]]:
    """Per section, the titles from its top-level heading down to its own (untitled ones left out); a walk
    up from each section with a dict of them all per section cost 0.9 s on a page of 4,000 sections."""
    by_id = {s.id: k for k, s in enumerate(sections)}  # an id used twice: the last one, as before
    paths: dict[int, tuple[str, ...]] = {}

    def path_of(k: int) -> tuple[str, ...]:
        if k not in paths:
            sec = sections[k]
            up = by_id.get(sec.parent) if sec.parent else None
            paths[k] = (path_of(up) if up is not None else ()) + ((sec.title,) if sec.title else ())
        return paths[k]

    return [path_of(k) for k in range(len(sections))]
