"""The PostgreSQL index's schema: ordered migrations, applied by `docslice migrate` alone; every other process
checks the version and says what to run when it is not its own."""

from __future__ import annotations

import psycopg

from docs_mcp.errors import IndexVersionError
from docs_mcp.store.postgres.inbound import INBOUND_MIGRATION
from docs_mcp.store.postgres.keywords import KEYWORD_MIGRATION, KEYWORD_PAGE_KEY
from docs_mcp.store.postgres.sessions import SESSION_MIGRATION
from docs_mcp.store.postgres.upgrade import (
    UNTHROTTLED,
    compact_terms,
    int8_vectors,
    packed_counts,
    page_words,
)

#: Each entry moves the schema one version up (version = its position + 1): SQL, or a function of the
#: connection (a conversion of the stored rows); never edit a released one.
MIGRATIONS = (
    """
    CREATE TABLE meta(key text PRIMARY KEY, value text);
    CREATE TABLE pages(
        id bigserial PRIMARY KEY, key text COLLATE "C" NOT NULL UNIQUE, title text NOT NULL,
        fetched_at double precision NOT NULL, etag text, last_modified text, hash text,
        listed boolean NOT NULL DEFAULT true);
    CREATE TABLE page_data(id bigint PRIMARY KEY, links text, terms bytea, doc bytea);
    CREATE TABLE page_fts(id bigint PRIMARY KEY, tsv tsvector NOT NULL, len integer NOT NULL);
    CREATE INDEX page_fts_tsv ON page_fts USING gin(tsv);
    CREATE TABLE sections(
        id bigserial PRIMARY KEY, page_id bigint NOT NULL, ord integer NOT NULL, anchor text NOT NULL,
        level integer NOT NULL, title text NOT NULL, path text NOT NULL, text text NOT NULL,
        names text NOT NULL DEFAULT '', tsv tsvector, len integer);
    CREATE INDEX sections_page ON sections(page_id);
    CREATE INDEX sections_tsv ON sections USING gin(tsv);
    CREATE TABLE section_terms(
        term text NOT NULL, id bigint NOT NULL, page_id bigint NOT NULL, len integer NOT NULL,
        a integer NOT NULL, b integer NOT NULL, c integer NOT NULL, d integer NOT NULL,
        PRIMARY KEY (term, id) INCLUDE (page_id, len, a, b, c, d));
    CREATE INDEX section_terms_page ON section_terms(page_id);
    CREATE TABLE page_terms(
        term text NOT NULL, id bigint NOT NULL, len integer NOT NULL,
        a integer NOT NULL, b integer NOT NULL, c integer NOT NULL, d integer NOT NULL,
        PRIMARY KEY (term, id) INCLUDE (len, a, b, c, d));
    CREATE INDEX page_terms_id ON page_terms(id);
    CREATE TABLE page_vectors(id bigint PRIMARY KEY, model text NOT NULL, vecs bytea NOT NULL);
    CREATE TABLE vocab(term text PRIMARY KEY, df integer NOT NULL);
    INSERT INTO vocab VALUES ('', 0);
    CREATE TABLE fts_totals(kind text PRIMARY KEY, rows bigint NOT NULL, tokens bigint NOT NULL);
    INSERT INTO fts_totals VALUES ('pages', 0, 0), ('sections', 0, 0);
    """,
    KEYWORD_MIGRATION,  # 2: the entries of the site's own keyword index pages
    compact_terms,  # 3: term rows per term and bundle of pages (postings.py), no tsvectors; autovacuum per table
    # 4: a long section text zlib'd in `ztext` (`text` then empty), as SQLite stores it
    "ALTER TABLE sections ADD COLUMN ztext bytea",
    # 5: a listed page's sections' content digests and section counts: which pages copy others.
    """
    CREATE TABLE section_digests(id bigint PRIMARY KEY, page_id bigint NOT NULL, digest text NOT NULL);
    CREATE INDEX section_digests_digest ON section_digests(digest, page_id);
    CREATE INDEX section_digests_page ON section_digests(page_id);
    CREATE TABLE page_shapes(id bigint PRIMARY KEY, sections integer NOT NULL, digests integer NOT NULL);
    """,
    # 6: keyword entries under their index page's key (a rewrite keeps the unchanged ones); upkeep settings
    KEYWORD_PAGE_KEY + UNTHROTTLED,
    page_words,  # 7: the words of a listed page's section texts (page_shapes.words), counted from the sections
    # 8: no copy of a page's vocabulary counts (page_data.terms): a page taken out recounts them from its
    # sections, as SQLite does. The column's bytes stay until its rows are rewritten (or VACUUM FULL page_data).
    "ALTER TABLE page_data DROP COLUMN IF EXISTS terms",
    packed_counts,  # 9: term rows with their counts packed (postings.py), made again from the stored sections
    INBOUND_MIGRATION,  # 10: the words of the site's links to each page (inbound.py); none until pages are rewritten
    SESSION_MIGRATION,  # 11: what each MCP session was sent, shared by stateless replicas (sessions.py)
    # 12: a section's digest without its last sentence too (`trimmed` 1; crawl/rows.py trimmed_digest): up to
    # two rows a section. The stored digests stay (whole texts'); trimmed ones come as pages are written again.
    """
    ALTER TABLE section_digests DROP CONSTRAINT IF EXISTS section_digests_pkey,
        ADD COLUMN IF NOT EXISTS trimmed smallint NOT NULL DEFAULT 0;
    CREATE INDEX IF NOT EXISTS section_digests_id ON section_digests(id);
    """,
    int8_vectors,  # 13: section vectors int8 with a scale a row (store/vectors.py), half of float16's bytes
)
SCHEMA_VERSION = len(MIGRATIONS)
#: pg_advisory_xact_lock key of schema migrations (any constant no build lock uses).
_MIGRATION_LOCK = 0x646F63736C696365


def migrate(conn: psycopg.Connection, location: str) -> tuple[int, int]:
    """Bring the schema up to this version, in one transaction under a lock (two runs at once take turns):
    (the version found, the version now). Only `docslice migrate` runs it: nothing else changes a schema."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version(version integer NOT NULL)")
        stored = _stored(conn)
        if stored > SCHEMA_VERSION:
            raise IndexVersionError(_newer(location, stored))
        for version in range(stored + 1, SCHEMA_VERSION + 1):
            step = MIGRATIONS[version - 1]
            if callable(step):
                step(conn)
            else:
                conn.execute(step)
            conn.execute("INSERT INTO schema_version VALUES (%s)", (version,))
    return stored, SCHEMA_VERSION


def check(conn: psycopg.Connection, location: str) -> None:
    """Refuse, in one line saying what to run, an index whose schema is not this version's (read only: a
    replica's or a crawl's role needs no right to change it)."""
    try:
        with conn.transaction():
            stored = _stored(conn)
    except psycopg.errors.UndefinedTable:
        stored = 0
    if stored > SCHEMA_VERSION:
        raise IndexVersionError(_newer(location, stored))
    if stored < SCHEMA_VERSION:
        found = f"schema {stored}" if stored else "no docslice schema yet"
        raise IndexVersionError(
            f"the index at {location} has {found}, this docslice needs schema {SCHEMA_VERSION}: run "
            f"`docslice migrate --index-url …` with this version first (docs/deploy.md, 'Upgrades')"
        )


def _stored(conn: psycopg.Connection) -> int:
    row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
    return (row[0] if row else None) or 0


def _newer(location: str, stored: int) -> str:
    return (
        f"the index at {location} was written by a newer docslice (schema {stored}, this version reads "
        f"{SCHEMA_VERSION}): upgrade docslice, or restore the backup taken before `docslice migrate` "
        "(docs/deploy.md, 'Upgrades')"
    )
