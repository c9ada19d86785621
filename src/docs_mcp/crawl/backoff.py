"""One page of a build fetched with backoff: a rate-limited site (429/503) is asked again after the delay it
gives, or a doubling one; other failures are noted on the build's progress."""

from __future__ import annotations

import asyncio

from docs_mcp.errors import FetchError, PageNotFound, RetryLater
from docs_mcp.fetch.fetching import Fetcher, RawPage
from docs_mcp.fetch.sources import Location
from docs_mcp.model.failures import failure
from docs_mcp.model.progress import Progress
from docs_mcp.settings import MAX_RETRY_AFTER
from docs_mcp.store.interface import PageState


async def fetch_with_backoff(
    fetcher: Fetcher, loc: Location, state: PageState | None, prog: Progress
) -> RawPage | None:
    """Fetch (conditionally, when `state` is the stored copy's) with backoff on 429/503; None (and an error
    noted) when it fails; PageNotFound propagates."""
    etag, last_modified = (state.etag, state.last_modified) if state else ("", "")
    for attempt in range(4):
        try:
            return await fetcher.fetch(loc, etag, last_modified)
        except RetryLater as exc:
            await asyncio.sleep(min(exc.retry_after or 2.0**attempt, MAX_RETRY_AFTER))
        except PageNotFound:
            raise
        except FetchError as exc:
            prog.note_error(str(exc), *failure(exc))
            return None
    prog.note_error(f"{loc.key}: still rate-limited after retries", "rate-limited (429/503)")
    return None
