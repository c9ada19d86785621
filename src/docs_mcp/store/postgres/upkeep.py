"""Dead rows given back while a writer rewrites pages: VACUUM of the churned tables every few pages."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import psycopg
from psycopg_pool import PoolTimeout

from docs_mcp.store.postgres.upgrade import CHURNED

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

#: A writer vacuums the churned tables once it has replaced or removed this share of the index's pages (and
#: at least VACUUM_MIN_PAGES): a full refresh then grows the index by about this share, not by all of it.
VACUUM_SHARE, VACUUM_MIN_PAGES = 0.04, 50


class Upkeep:
    """Counts the pages a writer replaced or removed; once they are VACUUM_SHARE of the index, vacuums the
    tables they churn, so that the next writes reuse the dead rows' space: a refresh that rewrites every page
    would otherwise double the tables before autovacuum's next round (VACUUM never shrinks them again)."""

    def __init__(self, pool: ConnectionPool):
        self.pool = pool
        self.dead = 0  # pages rewritten since the last VACUUM
        self.pages = 0  # pages in the index then

    def rewrote(self, pages: int) -> None:
        self.dead += pages
        if self.dead < max(VACUUM_MIN_PAGES, VACUUM_SHARE * self.pages):
            return
        self.dead = 0
        with contextlib.suppress(psycopg.Error, PoolTimeout), self.pool.connection() as conn:
            self.pages = conn.execute("SELECT count(*) FROM pages").fetchone()[0]
            # Not the tables' owner: PostgreSQL skips them with a warning, and autovacuum does it later.
            conn.execute(f"VACUUM (SKIP_LOCKED) {', '.join(CHURNED)}")
