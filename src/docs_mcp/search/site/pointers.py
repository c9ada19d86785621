"""Pages that point at the answer: a page whose links name another candidate with every selective word of the
query (a package's module list, a chapter's table of contents, a class page listing its nested types) yields
to the page it points at.

A listing holds the names of everything it lists, each beside a one-line summary, so it matches a name as well
as the named page does, and its vector, an average over many names, sits near any short query; it took the
right page's place for most of the audit's thefts on such sites (aeson's module list above the module asked
for by its name, Sphinx's extension index above "Project API"). Its link says which page the site means by
those words: that page goes just above the listing, once, when its title is more the query's than the
listing's (a page titled by the query keeps its place above what it links to) and it does not point back with
those words too (`DOCSLICE_ABLATE=pointers`).
"""

from __future__ import annotations

from collections.abc import Callable

from docs_mcp.search.site.safety import scored_as
from docs_mcp.store.interface import Reads

#: The pages at the head of the ranking whose links are read (the top 3 a reader looks at).
POINTER_HEAD = 3
#: How far below the head a page pointed at may stand and still be lifted.
POINTER_REACH = 20


def pointed_first(
    reads: Reads,
    combined: dict[int, float],
    selective: list[str],
    titled: dict[int, float],
    keys: Callable[[set[int]], dict[int, str]],
) -> dict[int, float]:
    """The ranking with each of the head's pages below a page its links name with all of `selective` and whose
    title is more the query's (`titled`, scoring.titled_by); `keys` gives pages' keys, as links name them."""
    order = sorted(combined, key=lambda p: -combined[p])
    links = reads.links_from(order[:POINTER_HEAD])
    if not links:
        return combined
    return yielded(combined, selective, links, keys(set(order[:POINTER_REACH])), titled)


def yielded(
    combined: dict[int, float],
    selective: list[str],
    links: dict[int, dict[str, frozenset[str]]],
    keys: dict[int, str],
    titled: dict[int, float],
) -> dict[int, float]:
    """`pointed_first` on what it read: `links`, per page, target key → the terms its links to that page say;
    `keys`, page id → key."""
    wanted = set(selective)
    order = sorted(combined, key=lambda p: -combined[p])
    if not wanted or len(order) < 2:
        return combined
    by_key = {keys[p]: p for p in order[:POINTER_REACH] if p in keys}
    moved: set[int] = set()
    for page in order[:POINTER_HEAD]:
        targets = [by_key[t] for t, words in links.get(page, {}).items() if t in by_key and wanted <= words]
        below = [
            t
            for t in targets
            if t not in moved
            and order.index(t) > order.index(page)
            and titled.get(t, 0.0) > titled.get(page, 0.0)
        ]
        back = keys.get(page, "")
        below = [t for t in below if not wanted <= links.get(t, {}).get(back, frozenset())]
        if below:
            target = min(below, key=order.index)
            order.remove(target)
            order.insert(order.index(page), target)
            moved.add(target)
    return scored_as(combined, order)
