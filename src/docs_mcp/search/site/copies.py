"""Pages that repeat other pages, told from the sections' content digests stored in the index.

An all-in-one page (Node's all.html, mdBook's print.html, a page listing every error code with its
explanation) holds most sections of the site: a hit on it points at the page it copies. One item under two
paths (an API page re-exported by two modules, titled by each) holds the same sections: it is one hit naming
the other addresses. Both hold for any generator: only the stored section digests are read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from docs_mcp.settings import AGGREGATE_SIZE_RATIO, mechanism_on
from docs_mcp.store.interface import Reads, Scope

#: A page is an all-in-one copy when at least this share of its digested sections occur on other pages.
AGGREGATE_SHARE = 0.5
#: Two pages of about one size (neither AGGREGATE_SIZE_RATIO times the other's digests) are one item when at
#: least this share of the smaller one's digested sections is in the other too.
DUPLICATE_SHARE = 0.8


@dataclass
class Folded:
    """The ranked pages once copies are folded: each page's best section, and the addresses each hit stands for."""

    ranked: list[int]
    section_of: dict[int, int | None]
    score: dict[int, float]
    also: dict[int, list[int]] = field(default_factory=dict)


def fold_copies(
    reads: Reads,
    ranked: list[int],
    section_of: dict[int, int | None],
    score: dict[int, float],
    owners: dict[int, str],
) -> Folded:
    """A hit on an all-in-one page becomes the page its best section comes from, at that page's own score (or
    the copy's, when the query's words did not find that page); a page holding the same sections as a hit
    above it joins that hit's addresses. Copies are looked for under each page's own root (`owners`: page →
    its root's key prefix)."""
    aggregates, duplicates = mechanism_on("aggregates"), mechanism_on("duplicates")
    sids = {pid: sid for pid in ranked if (sid := section_of.get(pid)) is not None}
    if not sids or not (aggregates or duplicates):
        return Folded(ranked, section_of, score)
    copies = _copies(reads, sids, owners)
    shapes = reads.page_shapes(sorted({*ranked, *(o for v in copies.values() for o, _ in v)}))
    size = {pid: shape[1] for pid, shape in shapes.items()}
    out = Folded([], dict(section_of), dict(score))
    taken: dict[int, int] = {}  # every address shown → the hit showing it
    for pid in ranked:
        if pid in taken:
            continue
        target, here = pid, copies.get(sids.get(pid, -1), [])
        source = [
            (size[o], o, s)
            for o, s in here
            if o in size and size.get(pid, 0) >= AGGREGATE_SIZE_RATIO * size[o]
        ]
        if aggregates and source and _aggregate(reads, size, pid):
            _, target, target_sid = min(source)
            if target in taken:
                continue
            out.section_of[target] = section_of.get(target) or target_sid
            # The all-in-one page's score is the sum of all it holds: the page it copies keeps its own score
            # where the query's words found it, and takes the copy's place only where they did not.
            out.score[target] = score.get(target, score[pid])
        out.ranked.append(target)
        taken[target] = target
        if duplicates:
            twins = [o for o, _ in here if o not in taken and _same_item(reads, size, target, o)]
            out.also[target] = twins
            taken.update(dict.fromkeys(twins, target))
    out.ranked.sort(key=lambda p: -out.score[p])  # stable: the order stands where no score changed
    return out


def _copies(reads: Reads, sids: dict[int, int], owners: dict[int, str]) -> dict[int, list[tuple[int, int]]]:
    """Per best section: the other pages (and their sections) under its page's root holding the same content."""
    by_root: dict[str, list[int]] = {}
    for pid, sid in sids.items():
        if pid in owners:
            by_root.setdefault(owners[pid], []).append(sid)
    copies: dict[int, list[tuple[int, int]]] = {}
    for root, group in by_root.items():
        for sid, other, other_sid in reads.section_copies(group, Scope((root,))):
            copies.setdefault(sid, []).append((other, other_sid))
    return copies


def _aggregate(reads: Reads, size: dict[int, int], page: int) -> bool:
    """Whether most of a page's digested sections occur on other pages (an all-in-one page, not a class page
    whose summary repeats one method's description)."""
    return reads.shared_digests(page) >= AGGREGATE_SHARE * size.get(page, 0) > 0


def _same_item(reads: Reads, size: dict[int, int], page: int, other: int) -> bool:
    """Whether two pages of about one size hold mostly the same sections (one item under two paths)."""
    a, b = size.get(page, 0), size.get(other, 0)
    if not a or not b or max(a, b) >= AGGREGATE_SIZE_RATIO * min(a, b):
        return False
    return reads.shared_digests(page, other) >= DUPLICATE_SHARE * min(a, b)
