"""A writer's upkeep: the small bundles of pages it wrote merged (bundles.py), and dead rows given back while it
rewrites pages (VACUUM of the churned tables every few pages)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

import psycopg
from psycopg_pool import PoolTimeout

from docs_mcp.errors import IndexUnavailable
from docs_mcp.store.postgres.bundles import BUNDLE_PAGES
from docs_mcp.store.postgres.inbound import INBOUND_TABLES
from docs_mcp.store.postgres.upgrade import CHURNED, DIGESTS

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

#: A writer vacuums the churned tables once it has replaced or removed this share of the index's pages (and
#: at least VACUUM_MIN_PAGES): a full refresh then grows the index by about this share, not by all of it.
#: 0.5% (was 2%): Python + PostgreSQL docs, full refresh, +14.3% at 2% and +8.7% at 0.5% (pg_size.py); the
#: cost is one VACUUM per ~1% of the pages written (a merge counts its pages), its index scans included.
VACUUM_SHARE, VACUUM_MIN_PAGES = 0.005, 8


class Upkeep:
    """Counts the pages a writer replaced or removed; once they are VACUUM_SHARE of the index, vacuums the
    tables they churn, so that the next writes reuse the dead rows' space: a refresh that rewrites every page
    would otherwise double the tables before autovacuum's next round (VACUUM never shrinks them again)."""

    def __init__(self, pool: ConnectionPool, merge: Callable[[list[int]], int]):
        self.pool = pool
        #: Merges bundles into one (in a write transaction of its own), returns the pages it holds.
        self.merge = merge
        self.dead = 0  # pages rewritten (or merged) since the last VACUUM
        self.pages = 0  # pages in the index then
        self.small: list[tuple[int, int]] = []  # (bundle, pages) written since the last merge
        self.bundle_pages = BUNDLE_PAGES

    def wrote(self, outcome: tuple[int, int | None, int]) -> None:
        """After a write: (pages it replaced, its bundle, the bundle's pages)."""
        replaced, bundle, pages = outcome
        if bundle is not None and pages < self.bundle_pages:
            self.small.append((bundle, pages))
            if sum(n for _, n in self.small) >= self.bundle_pages:
                small, self.small = self.small, []
                with contextlib.suppress(IndexUnavailable):  # left small: read as well, only larger
                    self.merge([b for b, _ in small])
                replaced += sum(n for _, n in small)  # their rows rewritten: as much to vacuum
        self.rewrote(replaced)

    def rewrote(self, pages: int) -> None:
        self.dead += pages
        if self.dead < max(VACUUM_MIN_PAGES, VACUUM_SHARE * self.pages):
            return
        self.dead = 0
        with contextlib.suppress(psycopg.Error, PoolTimeout), self.pool.connection() as conn:
            self.pages = conn.execute("SELECT count(*) FROM pages").fetchone()[0]
            # Not the tables' owner: PostgreSQL skips them with a warning, and autovacuum does it later.
            conn.execute(f"VACUUM (SKIP_LOCKED) {', '.join(CHURNED + DIGESTS + INBOUND_TABLES)}")
