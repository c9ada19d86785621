"""What the store holds on a query's candidate pages besides their full-text scores: the pages defining a
queried name, how much of the query each page's text covers, and the query's words that other pages' links to
each page say (search/site/scoring.py weighs them)."""

from __future__ import annotations

from collections.abc import Iterable

from docs_mcp.deadline import check
from docs_mcp.search.site.safety import Holding
from docs_mcp.search.site.scoring import keyword_strength
from docs_mcp.settings import KEYWORD_CANDIDATES, NAME_CANDIDATES, mechanism_on
from docs_mcp.store.interface import Reads, Scope
from docs_mcp.text.terms import NameMatcher, query_names, tokenize
from docs_mcp.text.version_numbers import holds_version, query_versions

#: A version more titles than this write (a site's own version in every title) tells no page apart.
VERSION_PAGES = 5
#: Titles read per version at most: LIKE `%3.2%` also finds every "... Django 3.2.25 documentation". A first
#: read of VERSION_FIRST settles a version most titles write (a site's own, "Quill 3.2 documentation");
#: the rest is read only while VERSION_PAGES or fewer of those write it (the worst case reads both).
VERSION_SCAN = 2000
VERSION_FIRST = 50


def defining_pages(reads: Reads, query: str, scope: Scope) -> dict[int, int]:
    """Pages with a section defining an API name or option of the query (exact or qualified match)."""
    wanted = query_names(query)
    # Full-text search finds candidates by the name's last two parts (so `a.b.Cls.meth` finds `Cls.meth`); only
    # an exact or qualified match counts, so `round` finds the built-in `round`, not every `__round__`.
    phrases = sorted({" ".join(tokenize(".".join(w.split(".")[-2:]))) for w in wanted} - {""})
    if not phrases:
        return {}
    out: dict[int, int] = {}
    matcher = NameMatcher(wanted)
    for page_id, section_id, names in reads.name_matches(phrases, scope, NAME_CANDIDATES):
        check()  # a section may list thousands of names
        if page_id not in out and matcher.any_in(names):
            out[page_id] = section_id
    return out


def keyword_pages(
    reads: Reads, terms: list[str], scope: Scope, idf: dict[str, float]
) -> dict[int, tuple[float, str]]:
    """Pages the site's keyword index files under the query's words (scoring.keyword_strength)."""
    if not mechanism_on("index-bridge"):
        return {}
    return keyword_strength(reads.keyword_matches(terms, scope, KEYWORD_CANDIDATES), terms, idf)


def versioned_pages(reads: Reads, query: str, scope: Scope) -> dict[int, float]:
    """Pages whose title writes a version the query writes ("Django 1.8.2 release notes"), each with the share
    of the query's versions its title writes: the tokenizer cuts `1.8.2` into pieces every release page holds."""
    versions = query_versions(query) if mechanism_on("versions") else []
    out: dict[int, float] = {}
    for version in versions:
        held = _titled(reads, version, scope)
        if len(held) <= VERSION_PAGES:
            for pid in held:
                out[pid] = out.get(pid, 0.0) + 1 / len(versions)
    return out


def _titled(reads: Reads, version: str, scope: Scope) -> list[int]:
    """The pages whose title writes `version`, read only as far as it takes to tell more than VERSION_PAGES."""
    held: list[int] = []
    for limit in (VERSION_FIRST, VERSION_SCAN):
        rows = reads.titled_pages(version, scope, limit)
        held = [pid for pid, title in rows if holds_version(title, version)]
        if len(held) > VERSION_PAGES or len(rows) < limit:
            break
    return held


def coverage(holding: Holding, terms: list[str], idf: dict[str, float], pages: set[int]) -> dict[int, float]:
    """Per page: the IDF-weighted share of the terms its text holds anywhere (title, headings, body, names)."""
    total = sum(idf[t] for t in terms) or 1.0
    ids = sorted(pages)
    out: dict[int, float] = dict.fromkeys(ids, 0.0)
    if not ids or not mechanism_on("coverage"):
        return out
    for t in terms:
        for pid in holding(t, ids):
            out[pid] += idf[t] / total
    return out


def inbound_words(reads: Reads, pages: Iterable[int], terms: list[str]) -> dict[int, set[str]]:
    """Per page: those of the terms that links to it from other pages of its site say (one read for all)."""
    out: dict[int, set[str]] = {}
    for pid, term in reads.inbound_terms(sorted(pages), terms):
        out.setdefault(pid, set()).add(term)
    return out
