"""A writer's upkeep: the small bundles of pages it wrote merged (bundles.py), dead rows given back while it
rewrites pages (VACUUM of the churned tables every few pages), and the tables' statistics kept up with what it
wrote (ANALYZE as the index grows)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from contextlib import AbstractContextManager

import psycopg
from psycopg_pool import PoolTimeout

from docs_mcp.errors import IndexUnavailable
from docs_mcp.store.postgres.bundles import BUNDLE_PAGES
from docs_mcp.store.postgres.inbound import INBOUND_TABLES
from docs_mcp.store.postgres.upgrade import CHURNED, DIGESTS

#: A writer vacuums the churned tables once it has replaced or removed this share of the index's pages (and
#: at least VACUUM_MIN_PAGES): a full refresh then grows the index by about this share, not by all of it.
#: 0.5% (was 2%): Python + PostgreSQL docs, full refresh, +14.3% at 2% and +8.7% at 0.5% (pg_size.py); the
#: cost is one VACUUM per ~1% of the pages written (a merge counts its pages), its index scans included.
VACUUM_SHARE, VACUUM_MIN_PAGES = 0.005, 8
#: A writer analyzes the tables once it has written or removed this share of the index's pages since its last
#: ANALYZE (and at least ANALYZE_MIN_PAGES): a new index was otherwise searched without statistics until
#: autovacuum's next round (up to a minute after the build, or never with autovacuum off), and the planner's
#: guess for the copies query (section_digests joined to itself) took 1.5-2.2 s a call instead of 0.15 ms
#: (Python docs, 100 agents on 3 replicas: PostgreSQL 77 CPU-s for 2,000 search_docs calls instead of 2.9).
#: A first build of N pages analyzes ~log(N) / log(1 + share) times, each a sample of at most 30,000 rows a table.
ANALYZE_SHARE, ANALYZE_MIN_PAGES = 0.2, 8
#: The tables a writer vacuums and analyzes: those its writes change.
_TABLES = ", ".join(CHURNED + DIGESTS + INBOUND_TABLES)


#: A writer merges its small bundles once they hold this many term rows (or BUNDLE_PAGES pages), into the bundle
#: its last merge made while that one holds fewer than BUNDLE_PAGES pages. A bundle of one page has a row for each
#: of its ~250 terms, one of 32 pages ~70 a page: 32 small bundles waiting held ~6,000 rows more than merged, and
#: their merge left as many dead at once; a refresh's peak of both is what it grows the `terms` table by. Python +
#: PostgreSQL docs, one refresh each (/tmp/pgg/exp.py): 45.5 MB -> 50.3 / 50.5 (32 pages only), 49.0 / 48.8
#: (2,048 rows), 48.2 (1,024).
MERGE_ROWS = 1024


class Upkeep:
    """Counts the pages a writer replaced or removed; once they are VACUUM_SHARE of the index, vacuums the
    tables they churn, so that the next writes reuse the dead rows' space: a refresh that rewrites every page
    would otherwise double the tables before autovacuum's next round (VACUUM never shrinks them again)."""

    def __init__(
        self,
        connection: Callable[[], AbstractContextManager[psycopg.Connection]],
        merge: Callable[[list[int]], tuple[int, int] | None],
    ):
        #: A pooled connection that answers, for a block (PostgresStore.connection).
        self.connection = connection
        #: Merges bundles into one (in a write transaction of its own): its id and pages (None: not merged).
        self.merge = merge
        self.dead = 0  # pages rewritten (or merged) since the last VACUUM
        self.pages = 0  # pages in the index then
        self.changed = 0  # pages written or removed since the last ANALYZE
        self.analyzed = 0  # pages in the index then
        self.small: list[tuple[int, int, int]] = []  # (bundle, pages, term rows) written since the last merge
        self.open: tuple[int, int] | None = None  # (bundle, pages) of the last merge, while it may grow
        self.bundle_pages, self.merge_rows = BUNDLE_PAGES, MERGE_ROWS

    def wrote(self, outcome: tuple[int, int | None, int, int], written: int) -> None:
        """After a write of `written` pages: (pages it replaced, its bundle, the bundle's pages, its term rows)."""
        replaced, bundle, pages, rows = outcome
        if bundle is not None and pages < self.bundle_pages:
            self.small.append((bundle, pages, rows))
            waiting = sum(n for _, n, _ in self.small)
            if waiting >= self.bundle_pages or sum(r for *_, r in self.small) >= self.merge_rows:
                replaced += self._merge(waiting)
        self.rewrote(replaced)
        self.changed_pages(written)

    def _merge(self, waiting: int) -> int:
        """The small bundles merged, into the open bundle if the result stays within BUNDLE_PAGES; the pages
        whose rows were rewritten (as much to vacuum)."""
        small, self.small = [b for b, _, _ in self.small], []
        if self.open is not None and self.open[1] + waiting > self.bundle_pages:
            self.open = None
        into = [] if self.open is None else [self.open[0]]
        if len(into + small) == 1:  # one write of many terms: the next ones are merged into it
            self.open = (small[0], waiting) if waiting < self.bundle_pages else None
            return 0
        rewritten, merged = waiting + (self.open[1] if self.open else 0), None
        with contextlib.suppress(IndexUnavailable):  # left small: read as well, only larger
            merged = self.merge(into + small)
        self.open = merged if merged is not None and merged[1] < self.bundle_pages else None
        return rewritten

    def rewrote(self, pages: int) -> None:
        self.dead += pages
        if self.dead < max(VACUUM_MIN_PAGES, VACUUM_SHARE * self.pages):
            return
        self.dead = 0
        self.pages = self._tend("VACUUM", self.pages)

    def changed_pages(self, pages: int) -> None:
        """After pages were written or removed: the tables analyzed once they are ANALYZE_SHARE of the index."""
        self.changed += pages
        if self.changed < max(ANALYZE_MIN_PAGES, ANALYZE_SHARE * self.analyzed):
            return
        self.changed = 0
        self.analyzed = self._tend("ANALYZE", self.analyzed)

    def _tend(self, command: str, pages: int) -> int:
        """VACUUM or ANALYZE the churned tables; the index's pages now (`pages` when the database is away)."""
        with contextlib.suppress(psycopg.Error, PoolTimeout), self.connection() as conn:
            pages = conn.execute("SELECT count(*) FROM pages").fetchone()[0]
            # Not the tables' owner: PostgreSQL skips them with a warning, and autovacuum does it later.
            conn.execute(f"{command} (SKIP_LOCKED) {_TABLES}")
        return pages
