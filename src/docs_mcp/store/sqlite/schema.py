"""The SQLite index's tables, and what happens to a file written by another version."""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Callable, Iterable
from itertools import groupby
from operator import itemgetter
from pathlib import Path

from docs_mcp.errors import IndexDamaged, IndexVersionError, StreamDamaged
from docs_mcp.settings import PAGE_WEIGHTS, SECTION_WEIGHTS
from docs_mcp.store.pagerows import unpack_text
from docs_mcp.store.pagestream import ZLIB_LEVEL, pack_page
from docs_mcp.store.sqlite.copies import digest_key
from docs_mcp.store.sqlite.inbound import INBOUND_SCHEMA, INBOUND_TABLES, INBOUND_WORDS, key_hash
from docs_mcp.store.sqlite.keywords import KEYWORD_SCHEMA, KEYWORD_TABLES
from docs_mcp.store.vectors import upgraded

#: Bumped whenever stored rows or the conversion behind stored pages change. 4: Django/Node.js/MkDocs-Bootstrap
#: containers, rustdoc sections and noise, plain signatures, a redirected address indexed at its final
#: address. 5: stored pages keep their units (anchors, definition entries, defined names, code size) and
#: code notes; sections are split from text without code. 6: pages keyed by address alone (the source is
#: whichever configured root holds it, named at read time); page ids never reused; a `vocab` table of
#: document frequencies kept up to date by every write; a page's stored document, links and terms in
#: `page_data`, so `pages` rows stay small for joins; generated listings (`_modules/`, `genindex`,
#: `search.html`, …) unlisted. 7: `page_vectors`, a listed page's section vectors (semantic re-ranking).
#: 8: each text stored once: contentless full-text tables (their tokens recomputed from `sections` to take a
#: page out), stored documents without the sections' texts, section texts and links zlib'd, no `terms`;
#: `pages.hash` digests the title and text (one item re-exported under two paths is one hit).
#: 9: `keywords`, the entries of the site's own keyword index pages (store/sqlite/keywords.py).
#: 10: `section_digests` (a listed page's sections' content digests) and `page_shapes` (its section counts):
#: which pages copy others (all-in-one pages, one item under two paths), known from the index.
#: 11: `page_shapes.words`, the words of a listed page's section texts (thin pages: search/site/page_kind.py).
#: 12: `inbound_words` and `link_words`, the words of the site's links to each page (store/sqlite/inbound.py).
#: 13: `section_digests` also holds a section's digest without its last sentence (`trimmed` 1; crawl/rows.py
#: trimmed_digest), so one section has up to two rows.
#: 14: a page's section paths and texts in one zlib stream (`page_data.texts`, store/sqlite/texts.py), none in
#: `sections`; section vectors int8 with a scale a row (store/vectors.py), not float16; `inbound_words.target`
#: a key's hash (store/sqlite/inbound.py); `section_digests` without rowids, each digest an integer.
#: 15: a page's links and document after its section paths and texts in that one stream (`page_data.doc`,
#: pagerows.pack_page; no `page_data.texts`, `.links`); its link words in `page_data.words` (no `link_words`).
#: 16: that stream starts with a table of its sections' path and text lengths, then the paths and texts as they
#: are (not one JSON array), so a search inflates it only as far as the sections it reads (pagerows.places_at).
SCHEMA_VERSION = 16
DIGESTS_SCHEMA = """
CREATE TABLE IF NOT EXISTS section_digests(
    id INTEGER NOT NULL, trimmed INTEGER NOT NULL DEFAULT 0, page_id INTEGER NOT NULL, digest INTEGER NOT NULL,
    PRIMARY KEY (id, trimmed)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS section_digests_digest ON section_digests(digest, page_id);
CREATE INDEX IF NOT EXISTS section_digests_page ON section_digests(page_id);
"""
#: 12 → 13: the digests kept (as whole texts'); trimmed ones come as pages are written again.
DIGESTS_13 = """
ALTER TABLE section_digests RENAME TO section_digests_12;
DROP INDEX section_digests_digest;
DROP INDEX section_digests_page;
CREATE TABLE IF NOT EXISTS section_digests(
    id INTEGER NOT NULL, page_id INTEGER NOT NULL, digest TEXT NOT NULL, trimmed INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS section_digests_digest ON section_digests(digest, page_id);
CREATE INDEX IF NOT EXISTS section_digests_page ON section_digests(page_id);
CREATE INDEX IF NOT EXISTS section_digests_id ON section_digests(id);
INSERT INTO section_digests(id, page_id, digest) SELECT id, page_id, digest FROM section_digests_12;
DROP TABLE section_digests_12;
"""


#: 13 → 14: digests as integers (copies.digest_key), each section's rows under its id (no rowid).
DIGESTS_14 = f"""
ALTER TABLE section_digests RENAME TO section_digests_13;
DROP INDEX IF EXISTS section_digests_digest;
DROP INDEX IF EXISTS section_digests_page;
DROP INDEX IF EXISTS section_digests_id;
{DIGESTS_SCHEMA}
INSERT OR IGNORE INTO section_digests(id, trimmed, page_id, digest)
    SELECT id, trimmed, page_id, digest_key(digest) FROM section_digests_13;
DROP TABLE section_digests_13;
"""
#: 13 → 14: inbound words' targets as their key hashes (two keys of one hash: their counts added).
INBOUND_14 = f"""
ALTER TABLE inbound_words RENAME TO inbound_words_13;
{INBOUND_WORDS};
INSERT INTO inbound_words SELECT key_hash(target), term, sources FROM inbound_words_13 WHERE true
    ON CONFLICT(target, term) DO UPDATE SET sources = sources + excluded.sources;
DROP TABLE inbound_words_13;
"""


def to_14(db: sqlite3.Connection) -> None:
    """13 → 14: each page's section paths and texts (zlib'd one row at a time) moved into one stream a page;
    vectors from float16 to int8 rows (store/vectors.py); inbound words by key hash; digests as integers."""
    for page_id, model, blob in db.execute("SELECT id, model, vecs FROM page_vectors").fetchall():
        packed = upgraded(model, blob)
        if packed is None:
            db.execute("DELETE FROM page_vectors WHERE id=?", (page_id,))
        elif packed != blob:
            db.execute("UPDATE page_vectors SET vecs=? WHERE id=?", (packed, page_id))
    target = db.execute("SELECT type FROM pragma_table_info('inbound_words') WHERE name='target'").fetchone()
    if target == ("TEXT",):  # a schema 11 file's tables were made in this version's layout
        db.create_function("key_hash", 1, key_hash, deterministic=True)
        _run(db, INBOUND_14)
    db.create_function("digest_key", 1, digest_key, deterministic=True)
    _run(db, DIGESTS_14)
    db.execute("ALTER TABLE page_data ADD COLUMN texts BLOB")
    rows = db.execute("SELECT page_id, path, text FROM sections ORDER BY page_id, ord")
    for page_id, held in groupby(rows, key=itemgetter(0)):
        paths, texts = zip(*((path, unpack_text(text)) for _, path, text in held), strict=True)
        db.execute("UPDATE page_data SET texts=? WHERE id=?", (_texts_14(paths, texts), page_id))
    db.execute("ALTER TABLE sections DROP COLUMN text")
    db.execute("ALTER TABLE sections DROP COLUMN path")


#: A page's stored values (schema 15): the link words it gives (read by every search's pointers, so before the
#: stream, whose overflow pages SQLite would walk to reach a column after it) and its stream (pack_page).
PAGE_DATA = "CREATE TABLE IF NOT EXISTS page_data(id INTEGER PRIMARY KEY, words BLOB, doc BLOB)"


def _texts_14(paths: tuple[str, ...], texts: tuple[str, ...]) -> bytes:
    """A page's section paths and texts as schema 14 stored them (`to_15` reads them back)."""
    return zlib.compress(
        json.dumps([list(paths), list(texts)], ensure_ascii=False).encode("utf-8"), ZLIB_LEVEL
    )


def to_15(db: sqlite3.Connection) -> None:
    """14 → 15: each page's document zlib'd after its texts in one stream (pagerows.pack_page), its link words
    moved from the `link_words` table (by page key) into its `page_data` row, before the stream, which holds
    its links too."""
    db.execute("ALTER TABLE page_data RENAME TO page_data_14")
    db.execute(PAGE_DATA)
    words = "NULL"
    if db.execute("SELECT 1 FROM sqlite_master WHERE name='link_words'").fetchone():  # none after 11 → 12
        words = "(SELECT w.pairs FROM pages p JOIN link_words w ON w.source=p.key WHERE p.id=d.id)"
    db.execute(f"INSERT INTO page_data(id, words) SELECT d.id, {words} FROM page_data_14 d")
    for (page_id,) in db.execute("SELECT id FROM page_data_14").fetchall():  # one page at a time
        sql = "SELECT doc, texts, links FROM page_data_14 WHERE id=?"
        doc, texts, links = db.execute(sql, (page_id,)).fetchone()
        paths, texts = json.loads(zlib.decompress(texts)) if texts else ([], [])
        links = zlib.decompress(links).decode("utf-8").split("\n") if links else []
        stream = (
            _stream_15(paths, texts, filter(None, links), zlib.decompress(doc)) if doc is not None else None
        )
        db.execute("UPDATE page_data SET doc=? WHERE id=?", (stream, page_id))
    db.execute("DROP TABLE page_data_14")
    db.execute("DROP TABLE IF EXISTS link_words")


def _stream_15(paths: list[str], texts: list[str], links: Iterable[str], doc: bytes) -> bytes:
    """A page's stream as schema 15 stored it: its paths and texts one JSON array (`to_16` reads it back)."""
    head = json.dumps([paths, texts], ensure_ascii=False).encode("utf-8")
    out = "\n".join(dict.fromkeys(links)).encode("utf-8")
    return (
        len(head).to_bytes(4, "big")
        + len(out).to_bytes(4, "big")
        + zlib.compress(head + out + doc, ZLIB_LEVEL)
    )


def to_16(db: sqlite3.Connection) -> None:
    """15 → 16: each page's stream written again with its places' table (pagerows.pack_page)."""
    for (page_id,) in db.execute("SELECT id FROM page_data WHERE doc IS NOT NULL").fetchall():
        (blob,) = db.execute("SELECT doc FROM page_data WHERE id=?", (page_id,)).fetchone()
        head, links = int.from_bytes(blob[:4], "big"), int.from_bytes(blob[4:8], "big")
        try:
            raw = zlib.decompress(blob[8:])
            paths, texts = json.loads(raw[:head])
            out = raw[head : head + links].decode("utf-8")
        except (zlib.error, ValueError) as exc:  # ValueError: JSON's and UTF-8's errors
            raise StreamDamaged(f"page {page_id}'s stored stream (schema 15) is damaged ({exc})") from None
        stream = pack_page(paths, texts, out.split("\n") if out else [], raw[head + links :])
        db.execute("UPDATE page_data SET doc=? WHERE id=?", (stream, page_id))


#: Versions converted in place (tables added, the pages kept), each by its SQL (or function) to the next
#: version; any other older version is dropped and built again. 11 → 12: no link words until a page is written
#: again.
IN_PLACE: dict[str, str | Callable[[sqlite3.Connection], None]] = {
    "11": INBOUND_SCHEMA,
    "12": DIGESTS_13,
    "13": to_14,
    "14": to_15,
    "15": to_16,
}
TABLES = ("sections_fts", "pages_fts", "sections", "page_data", "page_vectors", "pages", "vocab", "meta")
TABLES += ("section_digests", "page_shapes")
TABLES += KEYWORD_TABLES + INBOUND_TABLES  # store/sqlite/keywords.py and inbound.py own theirs
SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS pages(
    id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE, title TEXT NOT NULL,
    fetched_at REAL NOT NULL, etag TEXT, last_modified TEXT, hash TEXT, listed INTEGER NOT NULL DEFAULT 1);
{PAGE_DATA};
CREATE TABLE IF NOT EXISTS sections(
    id INTEGER PRIMARY KEY, page_id INTEGER NOT NULL, ord INTEGER NOT NULL, anchor TEXT NOT NULL,
    level INTEGER NOT NULL, title TEXT NOT NULL, names TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS sections_page ON sections(page_id);
CREATE VIRTUAL TABLE IF NOT EXISTS sections_fts USING fts5(
    title, path, body, names, content='', tokenize='unicode61');
CREATE VIRTUAL TABLE IF NOT EXISTS pages_fts USING fts5(
    title, headings, body, names, content='', tokenize='unicode61');
CREATE TABLE IF NOT EXISTS page_vectors(id INTEGER PRIMARY KEY, model TEXT NOT NULL, vecs BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS vocab(term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;
{DIGESTS_SCHEMA}CREATE TABLE IF NOT EXISTS page_shapes(
    id INTEGER PRIMARY KEY, sections INTEGER NOT NULL, digests INTEGER NOT NULL, words INTEGER NOT NULL);
INSERT OR IGNORE INTO meta VALUES ('schema', '{SCHEMA_VERSION}');
INSERT OR IGNORE INTO vocab VALUES ('', 0);
INSERT INTO sections_fts(sections_fts, rank) VALUES('rank', 'bm25({", ".join(map(str, SECTION_WEIGHTS))})');
INSERT INTO pages_fts(pages_fts, rank) VALUES('rank', 'bm25({", ".join(map(str, PAGE_WEIGHTS))})');
{KEYWORD_SCHEMA}{INBOUND_SCHEMA}"""


def create_or_upgrade(db: sqlite3.Connection, path: Path) -> None:
    """Inside the caller's write transaction: create the tables, or drop an older version's and create them
    again (a stale cache, rebuilt by this run); a newer version's index is refused."""
    try:
        row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    except sqlite3.OperationalError:  # a new file: no tables yet
        row = ("new",)
    stored = row[0] if row else "0"
    if stored.isdigit() and int(stored) > SCHEMA_VERSION:
        raise IndexVersionError(
            f"the index {path} was written by a newer docslice (index schema {stored}, this version "
            f"reads {SCHEMA_VERSION}): upgrade docslice, or give this one its own --cache-dir"
        )
    while stored in IN_PLACE:
        step = IN_PLACE[stored]
        if callable(step):
            try:
                step(db)
            except StreamDamaged as exc:  # the caller rolls back; open_index moves the file aside
                raise IndexDamaged(f"the site index {path} is damaged: {exc}") from None
        else:
            _run(db, step)
        stored = str(int(stored) + 1)
        db.execute("UPDATE meta SET value=? WHERE key='schema'", (stored,))
    if stored != "new" and stored != str(SCHEMA_VERSION):
        for table in TABLES:
            db.execute(f"DROP TABLE IF EXISTS {table}")
    _run(db, SCHEMA)


def _run(db: sqlite3.Connection, script: str) -> None:
    for statement in script.split(";\n"):  # executescript would commit the transaction
        if statement.strip():
            db.execute(statement)
