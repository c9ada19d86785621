"""Migrations that convert stored rows in place, a slice of pages at a time. 3: the term rows packed one per
term and bundle of pages (postings.py), from version 2's rows; the tsvectors and their GIN indexes dropped
(nothing reads them). 7: each listed page's words (`page_shapes.words`), counted from its stored sections.
9: every bundle's term rows written again from its pages' stored sections (postings.py's counts packed).
13: section vectors int8 with a scale a row (store/vectors.py), from float16."""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_mcp.store.pagerows import fts_rows
from docs_mcp.store.postgres.bundles import copy_rows
from docs_mcp.store.postgres.postings import PageTerms, bundle_rows
from docs_mcp.store.postgres.text import column_counts, stored_text
from docs_mcp.store.vectors import upgraded
from docs_mcp.text.terms import tokenize

if TYPE_CHECKING:
    import psycopg

#: Pages converted per statement pair (bounded memory on a site of any size), and per bundle (a crawl's batch).
_SLICE, _BUNDLE = 512, 32
#: Tables a rewrite churns: vacuumed after 2% of their rows changed (the default, 20%, let a full refresh
#: double them before the first vacuum; VACUUM gives dead rows' space back to the next writes).
CHURNED = ("pages", "page_data", "sections", "terms", "bundles", "page_vectors", "vocab", "keywords")
#: Tables churned too that came after migration 3 (schema 5), vacuumed with the others.
DIGESTS = ("section_digests", "page_shapes")
#: Migration 6's part: the digest tables vacuumed as often as the others, and autovacuum of every churned table
#: unthrottled (as a manual VACUUM is): a throttled round on a busy machine held `terms` for its length, the
#: writer's own VACUUMs skipped it meanwhile (SKIP_LOCKED), and the dead rows of those writes piled up.
UNTHROTTLED = "".join(
    f"ALTER TABLE {t} SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 200);\n"
    for t in DIGESTS
) + "".join(f"ALTER TABLE {t} SET (autovacuum_vacuum_cost_delay = 0);\n" for t in CHURNED + DIGESTS)
COMPACT_TERMS = """
    CREATE TABLE terms(term text COLLATE "C" NOT NULL, bundle bigint NOT NULL, data bytea NOT NULL);
    CREATE INDEX terms_term ON terms(term);
    CREATE INDEX terms_bundle ON terms(bundle);
    CREATE TABLE bundles(id bigint PRIMARY KEY, pages integer NOT NULL, live integer NOT NULL);
    ALTER TABLE pages ADD COLUMN len integer, ADD COLUMN bundle bigint;
    CREATE INDEX pages_bundle ON pages(bundle);
    -- Every page write adds to (and a rewrite takes back from) hundreds of document frequencies: room on
    -- each page keeps those updates on the page (HOT), not in new pages.
    ALTER TABLE vocab SET (fillfactor = 85);
    UPDATE pages p SET len = f.len FROM page_fts f WHERE f.id = p.id;
    """ + "".join(
    f"ALTER TABLE {t} SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 200);\n"
    for t in CHURNED
)
_DROP = """
    DROP TABLE section_terms, page_terms, page_fts;
    ALTER TABLE sections DROP COLUMN tsv;
    """


def compact_terms(conn: psycopg.Connection) -> None:
    """Version 2 → 3, inside the migration's transaction."""
    conn.execute(COMPACT_TERMS)
    last = conn.execute("SELECT coalesce(max(id), 0) FROM pages").fetchone()[0]
    for lo in range(0, last + 1, _SLICE):
        span = (lo, lo + _SLICE)
        pages: dict[int, dict] = {}
        for term, pid, *counts in conn.execute(
            "SELECT term, id, a, b, c, d FROM page_terms WHERE id >= %s AND id < %s", span
        ):
            pages.setdefault(pid, {})[term] = counts
        sections: dict[int, dict[tuple[int, int], dict]] = {}
        for term, pid, ord_, length, *counts in conn.execute(
            "SELECT t.term, t.page_id, s.ord, t.len, t.a, t.b, t.c, t.d FROM section_terms t "
            "JOIN sections s ON s.id = t.id WHERE t.page_id >= %s AND t.page_id < %s",
            span,
        ):
            sections.setdefault(pid, {}).setdefault((ord_, length), {})[term] = counts
        listed = sorted(set(pages) | set(sections))
        for at in range(0, len(listed), _BUNDLE):
            bundle = listed[at : at + _BUNDLE]
            entries = [
                (pid, pages.get(pid, {}), [(o, n, c) for (o, n), c in sorted(sections.get(pid, {}).items())])
                for pid in bundle
            ]
            conn.execute("INSERT INTO bundles VALUES (%s, %s, %s)", (bundle[0], len(bundle), len(bundle)))
            conn.execute("UPDATE pages SET bundle = %s WHERE id = ANY(%s)", (bundle[0], bundle))
            with conn.cursor() as cur, cur.copy("COPY terms (term, bundle, data) FROM STDIN") as copy:
                for term, data in bundle_rows(bundle[0], entries):
                    copy.write_row((term, bundle[0], data))
    conn.execute(_DROP)


def page_words(conn: psycopg.Connection) -> None:
    """Version 6 → 7: `page_shapes.words`, the tokens of each listed page's section texts, as a write counts
    them (PreparedPage.words: the full-text body is the tokenized text)."""
    conn.execute("ALTER TABLE page_shapes ADD COLUMN words integer NOT NULL DEFAULT 0")
    last = conn.execute("SELECT coalesce(max(id), 0) FROM page_shapes").fetchone()[0]
    for lo in range(0, last + 1, _SLICE):
        words: dict[int, int] = {}
        for pid, plain, packed in conn.execute(
            "SELECT s.page_id, s.text, s.ztext FROM sections s JOIN page_shapes p ON p.id = s.page_id "
            "WHERE s.page_id >= %s AND s.page_id < %s",
            (lo, lo + _SLICE),
        ):
            words[pid] = words.get(pid, 0) + len(tokenize(stored_text(plain, packed)))
        if words:
            conn.cursor().executemany(
                "UPDATE page_shapes SET words = %s WHERE id = %s", [(n, pid) for pid, n in words.items()]
            )


def packed_counts(conn: psycopg.Connection) -> None:
    """Version 8 → 9: each bundle's term rows made again, in postings.py's format, from its listed pages'
    stored sections (tokenized as a write tokenizes them: pagerows.fts_rows); pages gone from a bundle drop
    out of its rows, a bundle left with none is deleted."""
    bundles = [b for (b,) in conn.execute("SELECT id FROM bundles ORDER BY id")]
    for at in range(0, len(bundles), _SLICE // _BUNDLE):
        some = bundles[at : at + _SLICE // _BUNDLE]
        titles = dict(
            conn.execute("SELECT id, title FROM pages WHERE bundle = ANY(%s) AND len IS NOT NULL", (some,))
        )
        held: dict[int, list[tuple]] = {pid: [] for pid in titles}
        for row in conn.execute(
            "SELECT page_id, ord, title, path, text, ztext, names FROM sections WHERE page_id = ANY(%s) "
            "ORDER BY page_id, ord",
            (list(titles),),
        ):
            held[row[0]].append(row[1:])
        entries: dict[int, list[PageTerms]] = {}
        for bundle, pid in conn.execute(
            "SELECT bundle, id FROM pages WHERE id = ANY(%s) ORDER BY id", (list(titles),)
        ):
            entries.setdefault(bundle, []).append(_stored_terms(pid, titles[pid], held[pid]))
        conn.execute("DELETE FROM terms WHERE bundle = ANY(%s)", (some,))
        conn.execute("DELETE FROM bundles WHERE id = ANY(%s) AND NOT id = ANY(%s)", (some, list(entries)))
        for bundle, pages in entries.items():
            copy_rows(conn, bundle, bundle_rows(bundle, pages))
            conn.execute(
                "UPDATE bundles SET pages = %s, live = %s WHERE id = %s", (len(pages), len(pages), bundle)
            )


def _stored_terms(page_id: int, title: str, sections: list[tuple]) -> PageTerms:
    """A listed page's term counts from its stored title and sections (ord, title, path, text, ztext, names), as
    the write that stored it counted them."""
    texts = [(t, path, stored_text(plain, packed), names) for _, t, path, plain, packed, names in sections]
    page_fts, section_fts, _ = fts_rows(title, texts)
    counted = []
    for (ord_, *_), fts in zip(sections, section_fts, strict=True):
        length, counts = column_counts(fts)
        counted.append((ord_, length, counts))
    return page_id, column_counts(page_fts)[1], counted


def int8_vectors(conn: psycopg.Connection) -> None:
    """Version 12 → 13: section vectors from float16 rows to int8 ones with a scale a row (store/vectors.py),
    a slice of pages at a time (rows already int8 kept); a page whose vectors cannot be read loses them (the
    next build embeds it)."""
    last = conn.execute("SELECT coalesce(max(id), 0) FROM page_vectors").fetchone()[0]
    for lo in range(0, last + 1, _SLICE):
        rows = conn.execute(
            "SELECT id, model, vecs FROM page_vectors WHERE id >= %s AND id < %s", (lo, lo + _SLICE)
        ).fetchall()
        packed = [(pid, bytes(blob), upgraded(model, bytes(blob))) for pid, model, blob in rows]
        with conn.cursor() as cur:
            sql = "UPDATE page_vectors SET vecs = %s WHERE id = %s"
            cur.executemany(sql, [(new, pid) for pid, old, new in packed if new is not None and new != old])
            cur.executemany(
                "DELETE FROM page_vectors WHERE id = %s", [(p,) for p, _, new in packed if new is None]
            )
