"""Versions in the tools: which sources a search reads, the page of the version asked for, and the pages that
exist only in another version ("not in 3.2; in 4.2: …")."""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from docs_mcp.errors import DocsMCPError, InvalidArgument, PageNotFound, echo
from docs_mcp.fetch.sources import Location, Source, SourceSet
from docs_mcp.fetch.versions import split_name
from docs_mcp.model.document import Document
from docs_mcp.model.hits import SearchHit


class DocsTools(Protocol):
    """What this module needs of the tools (docs.py): the sources, the site index and the pipeline."""

    sources: SourceSet
    searcher: Any

    async def document(self, url: str) -> tuple[Location, Document]: ...


#: What a search reads: one source's name, several, or None (every source).
Scope = str | tuple[str, ...] | None
#: Hits of the other versions looked at for pages the version searched lacks, and notes said at most.
ELSEWHERE_HITS = 3
ELSEWHERE_NOTES = 2


def search_scope(sources: SourceSet, source: str | None, version: str | None) -> Scope:
    """The sources search_docs reads: `source` at `version` (else at its default version); without `source`,
    every source, each one with versions at `version` where it has it, else at its default."""
    families = sources.families
    if source:
        family, given = split_name(source)
        if family in families and (version or not given):
            return families[family].member(version or families[family].default)
        sources.get(source)  # validates the name
        if version and version != given:
            raise InvalidArgument(f"source {echo(source, 60)} has no versions: leave version out")
        return source
    if not version:
        return tuple(s.name for s in sources.sources if _default(sources, s.name)) if families else None
    if not any(version in f.versions for f in families.values()):
        held = "; ".join(f"{f.name}: {', '.join(f.versions)}" for f in families.values()) or "none"
        raise InvalidArgument(f"no source has version {echo(version, 40)} (versions: {held})")
    picked = [s.name for s in sources.sources if split_name(s.name)[1] == version]
    return tuple(picked + [s.name for s in sources.sources if _default(sources, s.name, skip=version)])


def _default(sources: SourceSet, name: str, skip: str = "") -> bool:
    """A source without versions, or the default version of one (unless its family has version `skip`)."""
    family, version = split_name(name)
    f = sources.families.get(family)
    return f is None or (version == f.default and skip not in f.versions)


def same_page(loc: Location, target: Source) -> Location:
    """The page at `loc`'s path under another version's root."""
    rel = loc.key if loc.source.is_local else loc.key[len(loc.source.root) :]
    return Location(target, rel if target.is_local else target.root + rel, loc.fragment)


def versions_of(sources: SourceSet, loc: Location) -> list[Source]:
    """Every version of `loc`'s source, oldest first ([] for a source without versions)."""
    family, version = split_name(loc.source.name)
    f = sources.families.get(family)
    return [sources.get(f.member(v)) for v in f.versions] if version and f else []


def _address(sources: SourceSet, loc: Location) -> str:
    return sources.display_url(loc) + (f"#{loc.fragment}" if loc.fragment else "")


async def document(tools: DocsTools, url: str, version: str | None) -> tuple[Location, Document]:
    """The page at `url`, or its namesake in `version` of its source; a page that version lacks is said with
    the versions that hold it ("not in 3.2; in 4.2: …")."""
    target = url
    if version:
        loc = tools.sources.resolve(url)
        if not versions_of(tools.sources, loc):
            raise InvalidArgument(f"{echo(url)} is not from a source with versions: leave version out")
        family = split_name(loc.source.name)[0]
        wanted = tools.sources.get(tools.sources.families[family].member(version))
        target = _address(tools.sources, same_page(loc, wanted))
    try:
        return await tools.document(target)
    except PageNotFound:
        loc = tools.sources.resolve(target)
        if not versions_of(tools.sources, loc):
            raise
        found = []
        for other in versions_of(tools.sources, loc):
            if other is not loc.source:
                there = _address(tools.sources, same_page(loc, other))
                try:
                    await tools.document(there)
                except DocsMCPError:
                    continue
                found.append(f"in {split_name(other.name)[1]}: {there}")
        where = "; ".join(found) or "in no other version either"
        raise PageNotFound(f"{target} is not in {split_name(loc.source.name)[1]}; {where}") from None


async def elsewhere(tools: DocsTools, query: str, scope: Scope, hits: list[SearchHit]) -> str:
    """Notes on the best pages for `query` in the other versions of the one searched that it lacks:
    '; not in 3.2; in 4.2: URL' ("" when none, or without a site index to tell)."""
    indexed = getattr(tools.searcher, "indexed", None)
    names = (scope,) if isinstance(scope, str) else scope or ()
    asked = [tools.sources.get(n) for n in names if split_name(n)[1]]
    if indexed is None or len(asked) != 1:  # one version searched: with several, any page may be elsewhere
        return ""
    mine = asked[0]
    others = tuple(s.name for s in versions_of(tools.sources, Location(mine, mine.root)) if s is not mine)
    if not others:
        return ""
    found = await asyncio.to_thread(tools.searcher.search, query, ELSEWHERE_HITS, others)
    shown = {h.url for h in hits}
    places = [(h, same_page(tools.sources.resolve(h.url), mine)) for h in found if h.url not in shown]
    held = await asyncio.to_thread(indexed, [p.uid for _, p in places])
    if held is None:
        return ""
    notes: dict[str, str] = {}  # by the page's key in the version searched: 4.2 and 5.0 may both hold it
    for hit, place in places:
        if place.uid not in held and place.uid not in notes and len(notes) < ELSEWHERE_NOTES:
            notes[place.uid] = f"not in {split_name(mine.name)[1]}; in {split_name(hit.source)[1]}: {hit.url}"
    return "".join(f"; {n}" for n in notes.values())
