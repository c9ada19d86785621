"""Thin pages: a page whose sections hold only a few words each (a member stub, a listing of one-line entries)
ranks below the prose that explains, when both match.

BM25 favours short documents, so a three-line method page that shares one word with a "why" question
outranks the guide chapter answering it. How thin a page is comes from its structure alone, any generator:
its words (the tokens of its section texts) per section, stored at index time (`Reads.page_shapes`). A page
that defines a queried name, or that the site's own keyword index files under the query's words, is the
reference asked for: it is not judged. Nor is the part of the query its title holds: a Javadoc annotation's
one-screen page titled `Parameterized.BeforeParam` is the page asked for by that name, however thin, not the
class page listing it among others (JUnit's audit: that class page stood above the right one for 17 of 362
items; `DOCSLICE_ABLATE=titled-thin`).
"""

from __future__ import annotations

import math

from docs_mcp.store.interface import Reads

#: A page whose sections average fewer words than this is thin (set on the tuning halves; 40 and 75 did worse).
#: Prose sections run 80-160 words (GTK 4's guides, Django's topics); gi-docgen member pages 4-15, a class
#: page's one-line member entries ~8.
THIN_WORDS = 55
#: The most a thin page's score loses (at a quarter of THIN_WORDS or fewer words per section).
THIN_WEIGHT = 0.6


def thinness(sections: int, words: int) -> float:
    """0 for a page of THIN_WORDS or more words per section, rising to 1 at a quarter of that or fewer."""
    if sections <= 0:
        return 0.0
    mean = max(words, 1) / sections
    return 0.0 if mean >= THIN_WORDS else min(1.0, math.log2(THIN_WORDS / mean) / 2)


def thin_pages_lower(
    reads: Reads, combined: dict[int, float], exempt: set[int], titled: dict[int, float]
) -> dict[int, float]:
    """The combined scores with each thin page's (but the `exempt` ones') lowered by THIN_WEIGHT × its thinness,
    for the share of the query its title does not hold (`titled`: page → IDF share its title holds)."""
    shapes = reads.page_shapes([pid for pid in combined if pid not in exempt])
    out = dict(combined)
    for pid, (sections, _, words) in shapes.items():
        if pid in out:
            out[pid] *= 1 - THIN_WEIGHT * thinness(sections, words) * (1 - titled.get(pid, 0.0))
    return out
