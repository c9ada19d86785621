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
    if mechanism_on("digested-below"):
        # A chapter's heading in an all-in-one page holds no text of its own (too little to digest): its copies
        # are told by the text under it.
        below = reads.digested_below(sorted(set(sids.values())))
        sids = {pid: below.get(sid, sid) for pid, sid in sids.items()}
    near = mechanism_on("trimmed-digests")  # all-in-one pages told by digests without a last sentence too
    copies = _copies(reads, sids, owners, near)
    shapes = reads.page_shapes(sorted({*ranked, *(o for v in copies.values() for o, _ in v)}))
    size = {pid: shape[1] for pid, shape in shapes.items()}
    out = Folded([], dict(section_of), dict(score))
    taken: dict[int, int] = {}  # every address shown → the hit showing it
    for pid in ranked:
        if pid in taken:
            continue
        target, here = pid, copies.get(sids.get(pid, -1), [])
        scope = Scope((owners[pid],)) if pid in owners else None
        if aggregates and here and scope is not None and _aggregate(reads, scope, size, pid, near):
            source = _held(reads, scope, size, pid, here, near)
            if source:
                _, _, target, target_sid = min(source)
                if target in taken:
                    continue
                out.section_of[target] = section_of.get(target) or target_sid
                # The all-in-one page's score is the sum of all it holds: the page it copies keeps its own score
                # where the query's words found it, and takes the copy's place only where they did not.
                out.score[target] = score.get(target, score[pid])
        if duplicates and scope is not None:
            twins = [o for o, _ in here if o not in taken and _same_item(reads, scope, size, target, o)]
            target, twins = _specific(out, target, twins, here, size)
            out.also[target] = twins
            taken.update(dict.fromkeys(twins, target))
        out.ranked.append(target)
        taken[target] = target
    out.ranked.sort(key=lambda p: -out.score[p])  # stable: the order stands where no score changed
    return out


def _copies(
    reads: Reads, sids: dict[int, int], owners: dict[int, str], near: bool
) -> dict[int, list[tuple[int, int]]]:
    """Per best section: the other pages (and their sections) under its page's root holding the same content
    (`near`: or the same but for a closing sentence)."""
    by_root: dict[str, list[int]] = {}
    for pid, sid in sids.items():
        if pid in owners:
            by_root.setdefault(owners[pid], []).append(sid)
    copies: dict[int, list[tuple[int, int]]] = {}
    for root, group in by_root.items():
        for sid, other, other_sid in reads.section_copies(group, Scope((root,)), near):
            copies.setdefault(sid, []).append((other, other_sid))
    return copies


def _specific(
    out: Folded, target: int, twins: list[int], here: list[tuple[int, int]], size: dict[int, int]
) -> tuple[int, list[int]]:
    """The member of a group of copies that addresses the hit, and the others: the one of fewest sections (the
    chapter, not a page holding it and a little more), at the group's place; the first ranked among equals."""
    smallest = min(twins, key=lambda o: size.get(o, 0), default=target)
    if not mechanism_on("specific-copy") or size.get(smallest, 0) >= size.get(target, 0):
        return target, twins
    out.section_of[smallest] = dict(here).get(smallest) or out.section_of.get(smallest)
    out.score[smallest] = out.score[target]
    return smallest, [target, *(o for o in twins if o != smallest)]


def _aggregate(reads: Reads, scope: Scope, size: dict[int, int], page: int, near: bool) -> bool:
    """Whether most of a page's digested sections occur on pages of its root at most 1/AGGREGATE_SIZE_RATIO its
    size (an all-in-one page holding chapters; not a page whose mirror holds it all, nor a class page whose
    summary repeats one method's description)."""
    whole = size.get(page, 0)
    smaller = whole // AGGREGATE_SIZE_RATIO
    return reads.shared_digests(page, scope, most=smaller, near=near) >= AGGREGATE_SHARE * whole > 0


def _held(
    reads: Reads, scope: Scope, size: dict[int, int], page: int, here: list[tuple[int, int]], near: bool
) -> list[tuple[float, int, int, int]]:
    """The pages an all-in-one page copies among those holding its best section, most specific first: the share
    of theirs it holds (a chapter wholly), then the smaller; a page that merely holds one of its sections beside
    its own is not one it copies."""
    held = []
    for other, sid in here:
        own = size.get(other, 0)
        if own and size.get(page, 0) >= AGGREGATE_SIZE_RATIO * own:
            share = reads.shared_digests(other, scope, other=page, near=near) / own
            if share >= AGGREGATE_SHARE:
                held.append((-share, own, other, sid))
    return held


def _same_item(reads: Reads, scope: Scope, size: dict[int, int], page: int, other: int) -> bool:
    """Whether two pages of about one size hold mostly the same sections (one item under two paths), told by
    whole texts alone: two releases' notes that differ only in their closing lines are two items."""
    a, b = size.get(page, 0), size.get(other, 0)
    if not a or not b or max(a, b) >= AGGREGATE_SIZE_RATIO * min(a, b):
        return False
    return reads.shared_digests(page, scope, other=other, near=False) >= DUPLICATE_SHARE * min(a, b)
