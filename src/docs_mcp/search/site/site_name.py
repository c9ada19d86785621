"""The site's own name in a query: "postgres" in a question about PostgreSQL names the whole site, not
app-postgres.html. The words naming a scope's site come from its home pages' titles."""

from __future__ import annotations

import threading

from docs_mcp.site_words import HOME_PAGES, SITE_TITLE_GENERIC
from docs_mcp.store.interface import Reads, Scope
from docs_mcp.text.terms import tokenize

#: Scopes whose site words are memoized at most.
SITE_MEMO_SIZE = 64


def names_site(term: str, site: frozenset[str]) -> bool:
    """Whether a query term is the site's name or its short form (`postgr` of `postgresql`)."""
    return term in site or (len(term) >= 4 and any(w.startswith(term) for w in site))


class SiteNames:
    """Per scope: the words naming its site, memoized once found."""

    def __init__(self) -> None:
        self._memo: dict[Scope, frozenset[str]] = {}
        self._lock = threading.Lock()

    def words(self, reads: Reads, scope: Scope) -> frozenset[str]:
        """The words of the scope's home pages' titles that name the site (memoized once found)."""
        words = self._memo.get(scope)
        if words is None:
            rows = reads.page_titles([p + home for p in scope.prefixes for home in HOME_PAGES])
            words = (
                frozenset(t for _, title in rows for t in tokenize(title) if t.isalpha()) - SITE_TITLE_GENERIC
            )
            if rows:
                with self._lock:
                    if len(self._memo) > SITE_MEMO_SIZE:
                        self._memo.clear()
                    self._memo[scope] = words
        return words
