"""`docslice sources` and `docslice remove NAME`: the sources an index holds, and one of them removed whole."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from docs_mcp.cli.app import App
from docs_mcp.errors import DocsMCPError, InvalidArgument, echo
from docs_mcp.fetch.sources import Source, SourceSet, parse_source
from docs_mcp.fetch.versions import NAME_META
from docs_mcp.model.progress import BUILD_META, Outcome
from docs_mcp.store.interface import Scope, Store
from docs_mcp.text.counts import counted
from docs_mcp.text.dates import ago, utc_minute


@dataclass(frozen=True)
class Held:
    """One source in the index: its name (as configured here, else derived from its root), its pages, the
    bytes they take, and its last build."""

    source: Source
    pages: int
    size: int
    last: Outcome | None

    def health(self) -> str:
        last = self.last
        if last is None:
            return "ok (built before outcomes were kept)"
        problem = last.missing_note() or last.cut_note()
        if not last.reached:
            problem = f"unreachable at its last refresh ({last.error or last.cause}); its pages are kept"
        return problem or "ok"


def _index(app: App) -> Store:
    if app.index is None:
        raise DocsMCPError(app.index_notice or "no index")
    return app.index


def held(app: App) -> list[Held]:
    """Every source the index holds (each built at least once), in the order of their roots."""
    index = _index(app)
    configured = {s.root: s for s in app.sources.sources}
    roots = [key.removeprefix(BUILD_META) for key, _ in index.metas(BUILD_META)]
    found = [configured.get(r) or _version_root(index, r) or parse_source(r, missing_ok=True) for r in roots]
    named = SourceSet(found, frozenset(i for i, s in enumerate(found) if s.root in configured)).sources
    out = []
    with index.reading():  # one snapshot for every count
        for s in named:
            scope = Scope.of([s])
            last = Outcome.from_json(index.meta(BUILD_META + s.root))
            out.append(Held(s, index.page_count(scope), index.footprint(scope), last))
    return out


def _version_root(index: Store, root: str) -> Source | None:
    """A root indexed as a version of a source (`quill@3.2`), named so."""
    name = index.meta(NAME_META + root)
    return replace(parse_source(root, missing_ok=True), name=name) if name else None


def table(rows: list[Held], where: str) -> str:
    """What `docslice sources` prints: one line per source, then where the index is."""
    if not rows:
        return f"no source in the index at {where} (`docslice index --source …` builds one)"
    head = ("name", "pages", "size", "last refresh", "health", "root")
    cells = [
        (
            h.source.name,
            f"{h.pages:,}",
            f"{h.size / 1e6:,.1f} MB",
            f"{utc_minute(h.last.at)} ({ago(time.time() - h.last.at)})" if h.last else "unknown",
            h.health(),
            h.source.root,
        )
        for h in rows
    ]
    widths = [max(len(c[i]) for c in [head, *cells]) for i in range(len(head) - 1)]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=False)) + "  " + row[-1]
        for row in [head, *cells]
    ]
    return "\n".join([*lines, f"index: {where}"])


def remove(app: App, name: str) -> str:
    """Remove the source called `name` (or with that root) and its pages from the index; what was removed."""
    rows = held(app)
    match = [h for h in rows if name in (h.source.name, h.source.root, h.source.root.rstrip("/"))]
    if not match:
        names = ", ".join(h.source.name for h in rows) or "none"
        raise InvalidArgument(
            f"no source {echo(name, 60)} in the index; it holds: {names} (`docslice sources`)"
        )
    source = match[0].source
    index = _index(app)
    keys = [p.key for p in index.pages(Scope.of([source]))]
    gone = index.forget(BUILD_META + source.root, keys)
    index.forget(NAME_META + source.root, [])  # a version's name, if it was one
    return f"removed {source.name} ({source.root}): {counted(gone, 'page')}"
