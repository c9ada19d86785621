"""Tool fetches against a hostile origin: redirects, codings, bombs, headers, charsets, bytes, deadlines."""

from __future__ import annotations

import asyncio
import time
import tracemalloc
from collections.abc import Callable

import pytest
from conftest import SITE, LocalSite

from docs_mcp.errors import DocsMCPError, FetchError, URLNotAllowed

from .conftest import DEADLINE, hostile_tools, outside_root
from .origin import heavy_page, static

pytestmark = pytest.mark.anyio


async def until(condition: Callable[[], bool], seconds: float, what: str) -> None:
    """Wait until `condition` holds (checked every 10 ms), failing after `seconds`: an event, not a guess."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"not within {seconds:g} s: {what}"
        await asyncio.sleep(0.01)


async def read(tools, url: str) -> str:
    try:
        return await tools.get_doc_toc(url)
    finally:
        await tools.aclose()


async def error(tools, url: str) -> DocsMCPError:
    with pytest.raises(DocsMCPError) as exc:
        await read(tools, url)
    return exc.value


# --- redirects ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "path", ["redirect-port", "redirect-host", "redirect-file", "redirect-escape", "redirect-backslash"]
)
async def test_a_redirect_off_the_root_is_refused_before_it_is_requested(origin, path):
    exc = await error(hostile_tools(origin.url + "docs/"), origin.url + f"docs/{path}.html")
    assert isinstance(exc, URLNotAllowed)
    assert "not allowed" in str(exc)
    assert outside_root(origin) == []


async def test_a_redirect_loop_stops_at_the_redirect_limit(origin):
    exc = await error(hostile_tools(origin.url + "docs/"), origin.url + "docs/redirect-loop.html")
    assert "redirects" in str(exc)
    assert origin.requests.count("/docs/redirect-loop.html") == 6


async def test_a_redirect_inside_the_root_is_followed(origin):
    out = await read(hostile_tools(origin.url + "docs/"), origin.url + "docs/redirect-inside.html")
    assert out.startswith("# Tide tables")


# --- bodies: codings and size ------------------------------------------------------------------
@pytest.mark.parametrize("path", ["bomb", "gzip-gzip-bomb"])
async def test_a_gzip_bomb_page_is_refused_without_inflating_it(origin, path):
    tracemalloc.start()
    try:
        exc = await error(hostile_tools(origin.url + "docs/"), origin.url + f"docs/{path}.html")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(exc, FetchError)
    assert peak < 20_000_000, f"peak {peak:,} bytes"


async def test_a_gzip_bomb_page_says_it_is_over_the_limit_once_inflated(origin):
    exc = await error(hostile_tools(origin.url + "docs/"), origin.url + "docs/bomb.html")
    assert "once inflated (gzip)" in str(exc) and "--max-body-bytes" in str(exc)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("gzip-gzip", "2 stacked content codings (gzip, gzip)"),
        ("brotli", "content coding 'br'"),
        ("unknown-coding", "content coding 'x-evil'"),
        ("corrupt-gzip", "corrupt gzip body"),
    ],
)
async def test_stacked_unknown_or_corrupt_codings_are_refused_with_a_clear_error(origin, path, expected):
    exc = await error(hostile_tools(origin.url + "docs/"), origin.url + f"docs/{path}.html")
    assert expected in str(exc)
    assert "unexpected" not in str(exc)


async def test_a_response_with_a_huge_header_is_a_clean_fetch_error(origin):
    exc = await error(hostile_tools(origin.url + "docs/"), origin.url + "docs/huge-header.html")
    assert isinstance(exc, FetchError)
    assert "unexpected" not in str(exc) and len(str(exc)) < 500


async def test_a_response_with_a_big_header_is_read(origin):
    out = await read(hostile_tools(origin.url + "docs/"), origin.url + "docs/big-header.html")
    assert out.startswith("# Huge header")


# --- charsets and bytes ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "charset", ["undefined", "idna", "rot13", "base64", "zlib_codec", "punycode", "utf-7", "nonsense"]
)
async def test_a_charset_that_cannot_decode_falls_back_to_utf8(origin, charset):
    out = await read(hostile_tools(origin.url + "docs/"), origin.url + f"docs/charset-{charset}.html")
    assert out.startswith(f"# Charset {charset}")


@pytest.mark.parametrize("path", ["random", "nul"])
async def test_random_bytes_or_nul_served_as_html_are_read_as_text(origin, path):
    out = await read(hostile_tools(origin.url + "docs/"), origin.url + f"docs/{path}.html")
    assert "\x00" not in out


# --- deadlines ---------------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["trickle", "slow-headers"])
async def test_a_trickling_or_silent_page_is_given_up_at_the_deadline(origin, path):
    t0 = time.monotonic()
    exc = await error(
        hostile_tools(origin.url + "docs/", read_timeout=30.0), origin.url + f"docs/{path}.html"
    )
    elapsed = time.monotonic() - t0
    assert "deadline" in str(exc) and "--deadline" in str(exc)
    assert elapsed < DEADLINE + 2


async def test_one_slow_origin_does_not_starve_another_source(origin):
    healthy = LocalSite(SITE)
    tools = hostile_tools(origin.url + "docs/", healthy.url, deadline=6.0, read_timeout=5.0)
    slow = [
        asyncio.create_task(tools.get_doc_toc(origin.url + f"docs/trickle.html?n={i}")) for i in range(32)
    ]
    held = tools.settings.concurrency  # the slow origin's share of the pool
    try:
        await until(
            lambda: origin.requests.count("/docs/trickle.html") >= held,
            5,
            f"{held} trickling requests hold their connections",
        )
        out = await tools.get_doc_toc(healthy.url + "seed.html")
        assert out.startswith("# Tidal datums")
    finally:
        for t in slow:
            t.cancel()
        await asyncio.gather(*slow, return_exceptions=True)
        await tools.aclose()
        healthy.stop()


async def test_slow_parses_do_not_starve_a_cached_call(origin):
    for i in range(8):
        origin.routes[f"/docs/heavy-{i}.html"] = static(heavy_page(1200, i))
    tools = hostile_tools(origin.url + "docs/", max_body_bytes=5_000_000, deadline=60.0, read_timeout=30.0)
    try:
        await tools.get_doc_toc(origin.url + "docs/page.html")  # cached from now on
        done: list[str] = []

        async def heavy(i: int) -> None:
            await tools.get_doc_section(origin.url + f"docs/heavy-{i}.html", f"s{i}")
            done.append(f"heavy-{i}")

        async def cached(i: int) -> None:
            await tools.get_doc_toc(origin.url + "docs/page.html")
            done.append(f"cached-{i}")

        slow = [asyncio.create_task(heavy(i)) for i in range(8)]
        await until(
            lambda: all(f"/docs/heavy-{i}.html" in origin.requests for i in range(8)),
            10,
            "the heavy pages are fetched (and so being parsed)",
        )
        await asyncio.gather(*(cached(i) for i in range(5)))
        await asyncio.gather(*slow)
        # The cached calls never waited for a parse: they all finished before the first heavy page did (in
        # whichever order among themselves: they run concurrently).
        assert sorted(done[:5]) == [f"cached-{i}" for i in range(5)], done
    finally:
        await tools.aclose()
