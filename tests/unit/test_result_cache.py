"""search_docs's result cache: a repeated question is answered from it, any write to the index (this process's
or another's: a crawl job elsewhere) makes it rank again, and it holds a bounded number of entries for a
bounded time. On both engines, over the fixture site indexed by the real indexer."""

from __future__ import annotations

import asyncio
import time

import pytest
from conftest import SITE

from docs_mcp.crawl.indexer import Indexer
from docs_mcp.fetch.fetching import Fetcher
from docs_mcp.fetch.sources import SourceSet
from docs_mcp.model.hits import SearchHit
from docs_mcp.search.site.results import ResultCache
from docs_mcp.search.site.search import SiteSearch
from docs_mcp.settings import Settings
from docs_mcp.store.sqlite.store import SiteIndex

ENGINES = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
QUERY = "naive timestamps time zone"


def _open(engine: str, request: pytest.FixtureRequest, tmp_path):
    """A store of the engine; a second call opens another handle on the same index (another process's)."""
    if engine == "sqlite":
        return SiteIndex(tmp_path / "index.sqlite")
    from docs_mcp.store.postgres.store import PostgresStore

    return PostgresStore(request.getfixturevalue("postgres_url"))


@pytest.fixture(params=ENGINES)
def site(request, tmp_path):
    """The fixture site indexed, a SiteSearch over it, and another handle on the same index (a crawl job's)."""
    sources, settings = SourceSet.from_specs([str(SITE)]), Settings(cache_dir=None)
    index = _open(request.param, request, tmp_path)
    asyncio.run(Indexer(sources, settings, Fetcher(sources, settings), index, workers=1).run())
    other = _open(request.param, request, tmp_path)
    yield SiteSearch(index, sources), other
    other.close()
    index.close()


def _urls(hits: list[SearchHit]) -> list[str]:
    return [h.url for h in hits]


def test_a_repeated_question_is_answered_from_the_cache_with_the_same_hits(site):
    search, _ = site
    first, _, status, _ = search.search_with_status(QUERY, 10, None)
    again, _, status_again, _ = search.search_with_status(QUERY, 10, None)
    assert _urls(first) and _urls(first)[0].endswith("sphinx.html")
    assert again == first and status_again == status
    assert (search.results.computed, search.results.found) == (1, 1)
    # Another count or another source is another question.
    fewer, _, _, _ = search.search_with_status(QUERY, 2, None)
    assert fewer == first[:2] and search.results.computed == 2


def test_a_write_by_another_process_makes_the_next_search_rank_again_and_see_it(site):
    search, other = site
    first, _, _, _ = search.search_with_status(QUERY, 10, None)
    top = next(k for k in (p.key for p in other.pages(search.scope())) if k.endswith("sphinx.html"))
    other.remove(top)  # a crawl job elsewhere drops the best page
    after, _, _, _ = search.search_with_status(QUERY, 10, None)
    assert search.results.computed == 2
    assert _urls(first)[0].endswith("sphinx.html")
    assert not any(u.endswith("sphinx.html") for u in _urls(after))


def test_a_refresh_that_only_revalidates_a_page_shows_its_new_fetch_time(site):
    search, other = site
    first, _, _, _ = search.search_with_status(QUERY, 10, None)
    key = next(k for k in (p.key for p in other.pages(search.scope())) if k.endswith("sphinx.html"))
    other.touch(key, first[0].fetched_at + 86_400)  # a 304 a day later
    after, _, _, _ = search.search_with_status(QUERY, 10, None)
    assert _urls(after) == _urls(first)
    assert after[0].fetched_at == first[0].fetched_at + 86_400


def _hit(n: int) -> SearchHit:
    return SearchHit(f"https://x.test/{n}", f"page {n}", "", (), "", "x", 0.0, float(n))


def test_the_cache_holds_at_most_its_size_and_forgets_entries_after_its_ttl():
    cache = ResultCache(size=3, ttl=0.2)
    for n in range(5):
        cache.get("g1", f"q{n}", lambda n=n: [_hit(n)])
    assert len(cache) == 3 and cache.computed == 5
    assert cache.get("g1", "q4", lambda: [_hit(99)]) == [_hit(4)]  # kept
    assert cache.get("g2", "q4", lambda: [_hit(98)]) == [_hit(98)]  # another generation: ranked again
    time.sleep(0.3)
    assert cache.get("g1", "q4", lambda: [_hit(97)]) == [_hit(97)]  # too old: ranked again


def test_a_cache_of_size_zero_keeps_nothing():
    cache = ResultCache(size=0)
    assert cache.get(None, "q", lambda: [_hit(1)]) == [_hit(1)]
    assert cache.get(None, "q", lambda: [_hit(2)]) == [_hit(2)]
    assert len(cache) == 0 and cache.found == 0
