"""cache: single-flight loading, hits return the same object, failures are shared but never cached, TTL."""

from __future__ import annotations

import asyncio

from docs_mcp.convert.render import render_section
from docs_mcp.model.document import Document
from docs_mcp.model.section import Section
from docs_mcp.tools.cache import CACHED_BYTES_PER_CHAR, DocumentCache, weight


class Loader:
    """Counts its calls; each call yields to the loop first so concurrent callers pile up."""

    def __init__(self, fail: Exception | None = None, delay: float = 0.02):
        self.calls = 0
        self.fail = fail
        self.delay = delay

    async def __call__(self) -> Document:
        self.calls += 1
        await asyncio.sleep(self.delay)
        if self.fail is not None:
            raise self.fail
        return Document(f"page-{self.calls}.html", "src", "Page", (), render=render_section)


def test_concurrent_gets_of_one_key_load_once():
    cache, load = DocumentCache(10, 60), Loader()

    async def scenario():
        return await asyncio.gather(*(cache.get("k", load) for _ in range(5)))

    docs = asyncio.run(scenario())
    assert load.calls == 1
    assert all(d is docs[0] for d in docs)
    assert (cache.misses, cache.hits) == (1, 0)


def test_hit_returns_the_cached_object_without_loading():
    cache, load = DocumentCache(10, 60), Loader()

    async def scenario():
        return await cache.get("k", load), await cache.get("k", load)

    first, second = asyncio.run(scenario())
    assert first is second
    assert load.calls == 1
    assert cache.hits == 1
    assert cache.peek("k") is first


def test_different_keys_load_separately():
    cache, load = DocumentCache(10, 60), Loader()

    async def scenario():
        return await asyncio.gather(cache.get("a", load), cache.get("b", load))

    a, b = asyncio.run(scenario())
    assert load.calls == 2 and a is not b


def test_loader_error_reaches_every_waiter_and_is_not_cached():
    cache, failing = DocumentCache(10, 60), Loader(fail=ValueError("HTTP 500"))

    async def scenario():
        return await asyncio.gather(*(cache.get("k", failing) for _ in range(5)), return_exceptions=True)

    results = asyncio.run(scenario())
    assert failing.calls == 1
    assert all(isinstance(r, ValueError) and str(r) == "HTTP 500" for r in results)
    assert cache.peek("k") is None

    ok = Loader()
    doc = asyncio.run(cache.get("k", ok))
    assert ok.calls == 1 and doc.url == "page-1.html"


def test_expired_entry_is_reloaded():
    # The TTL is wide enough that a loaded machine cannot expire the entry between the first two gets.
    cache, load = DocumentCache(10, ttl=0.5), Loader(delay=0)

    async def scenario():
        first = await cache.get("k", load)
        again = await cache.get("k", load)
        await asyncio.sleep(0.6)
        return first, again, await cache.get("k", load)

    first, again, later = asyncio.run(scenario())
    assert again is first
    assert later is not first and later.url == "page-2.html"
    assert load.calls == 2


def test_least_recently_used_entry_is_evicted_beyond_maxsize():
    cache, load = DocumentCache(2, 60), Loader(delay=0)

    async def scenario():
        for key in ("a", "b", "a", "c"):
            await cache.get(key, load)

    asyncio.run(scenario())
    assert cache.peek("a") is not None and cache.peek("c") is not None
    assert cache.peek("b") is None


def sized(url: str, chars: int) -> Document:
    """A page whose one section holds `chars` characters of text."""
    return Document(
        url, "src", "Page", (Section("s", "S", 1, None, text="x" * chars),), render=render_section
    )


def test_pages_beyond_the_byte_budget_evict_the_least_recently_used():
    per_page = 1000 * CACHED_BYTES_PER_CHAR
    cache = DocumentCache(100, 60, max_bytes=int(2.5 * per_page))
    for key in ("a", "b"):
        cache.put(key, sized(key, 1000))
    cache.peek("a")  # a is now more recently used than b
    cache.put("c", sized("c", 1000))
    assert [k for k in "abc" if cache.peek(k)] == ["a", "c"]  # the count (100) never bound
    assert weight(sized("d", 1000)) == per_page


def test_a_page_heavier_than_the_budget_is_kept_alone():
    cache = DocumentCache(100, 60, max_bytes=1000)
    cache.put("a", sized("a", 10))
    cache.put("big", sized("big", 100_000))
    assert cache.peek("big") is not None and cache.peek("a") is None
    assert len(cache.documents()) == 1


def test_waiter_survives_cancellation_of_the_first_caller():
    cache, load = DocumentCache(10, 60), Loader(delay=0.1)

    async def scenario():
        first = asyncio.create_task(cache.get("k", load))
        await asyncio.sleep(0.01)
        waiter = asyncio.create_task(cache.get("k", load))
        await asyncio.sleep(0.01)
        first.cancel()
        return await waiter

    doc = asyncio.run(scenario())
    assert isinstance(doc, Document)
