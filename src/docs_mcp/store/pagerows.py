"""The rows a page becomes in the site index, as the store takes them (computed by crawl.rows in the workers)."""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from docs_mcp.store.pagestream import ZLIB_LEVEL
from docs_mcp.text.terms import tokenize

#: The vocab row counting listed sections (no token is empty).
TOTAL = ""

#: Shorter section texts are stored as they are: zlib's header and dictionary-less start gain them nothing.
PACK_MIN_CHARS = 100

#: A section's columns as the full-text index takes them: title, path, body, names (tokens, space-separated).
FtsRow = tuple[str, str, str, str]


#: Where copies are told by whole texts' digests alone (`near` off): no digest without a last sentence.
WHOLE_DIGESTS = " AND a.trimmed=0 AND b.trimmed=0"
#: Per section of `{ids}` (each engine's list condition) without a content digest: the first section under it
#: (before the next heading of its level or above) that has one; NULL where none. Both engines' SQL.
#: The end of each section's span is found once (a materialized CTE): as a subquery in the WHERE of the search
#: for the digested one, SQLite ran it again for every later section of the page (400 ms a call on JDK 17's
#: large pages, 0.6 ms so).
DIGESTED_BELOW = (
    "WITH s AS MATERIALIZED (SELECT s.id, s.page_id, s.ord, (SELECT coalesce(min(u.ord), s.ord+1000000000) "
    "FROM sections u WHERE u.page_id=s.page_id AND u.ord>s.ord AND u.level<=s.level) AS bound FROM sections s "
    "WHERE s.id {ids} AND NOT EXISTS (SELECT 1 FROM section_digests e WHERE e.id=s.id)) "
    "SELECT s.id, (SELECT t.id FROM sections t JOIN section_digests d ON d.id=t.id WHERE t.page_id=s.page_id "
    "AND t.ord>s.ord AND t.ord<s.bound ORDER BY t.ord LIMIT 1) FROM s"
)


@dataclass(frozen=True)
class PreparedPage:
    """A page's rows, computed before any lock is taken (in the indexer's worker processes)."""

    key: str
    title: str
    fetched_at: float
    etag: str
    last_modified: str
    hash: str
    listed: bool
    #: pages_fts row: title, headings, body, names as indexed tokens (empty for an unlisted page).
    page_fts: FtsRow
    #: sections rows: ord, anchor, level, title, path, names.
    sections: tuple[tuple[int, str, int, str, str, str], ...]
    #: The page's stream: its sections' paths and texts, in order, its outgoing links, then the converted page
    #: without the texts (`Document.to_json`), zlib'd together (`pack_page`).
    stream: bytes
    #: sections_fts rows, one per section (none for an unlisted page).
    section_fts: tuple[FtsRow, ...]
    #: zlib'd JSON {term: sections holding it}: what this page adds to the vocabulary.
    terms: bytes
    #: Semantic re-ranking: the model and its float16 vectors of the sections, in order ("", b"" without).
    vector_model: str = ""
    vectors: bytes = b""
    #: A keyword index page's entries: (term as indexed tokens, target page key, anchor); none elsewhere.
    keywords: tuple[tuple[str, str, str], ...] = ()
    #: A listed page's sections' content digests, in order ('' for a section too short to have one).
    digests: tuple[str, ...] = ()
    #: The words its links give other pages of its source: distinct (target key, term), sorted (inbound.py).
    link_words: tuple[tuple[str, str], ...] = ()
    #: Its sections' digests without their last sentence, in order ('' where none: crawl/rows.py trimmed_digest).
    trimmed: tuple[str, ...] = ()

    def digest_rows(self, section_ids: Sequence[int], page_id: int) -> list[tuple[int, int, str, int]]:
        """`section_digests` rows: (section id, page id, digest, trimmed: 1 for a digest without the section's
        last sentence), the whole texts' first."""
        whole = [(sid, page_id, d, 0) for sid, d in zip(section_ids, self.digests, strict=False) if d]
        return whole + [(sid, page_id, d, 1) for sid, d in zip(section_ids, self.trimmed, strict=False) if d]

    @property
    def words(self) -> int:
        """The words of a listed page's section texts (their full-text bodies' tokens): with the section count,
        how thin the page is (search/site/page_kind.py)."""
        return sum(len(row[2].split()) for row in self.section_fts)

    @property
    def row(self) -> tuple[str, str, float, str, str, str, int]:
        """The `pages` row: key, title, fetched_at, etag, last_modified, hash, listed."""
        return (
            self.key,
            self.title,
            self.fetched_at,
            self.etag,
            self.last_modified,
            self.hash,
            int(self.listed),
        )


def fts_rows(
    title: str, sections: Iterable[Sequence[str]]
) -> tuple[FtsRow, tuple[FtsRow, ...], dict[str, int]]:
    """A listed page's full-text rows from its title and its sections' (title, path, text, names): the page
    row, one row per section, and {term: sections holding it}. The index keeps no copy of these tokens
    (contentless FTS5), so taking a page out recomputes them from its stored rows: one function for both."""
    rows: list[FtsRow] = []
    df: dict[str, int] = {}
    for section in sections:
        cols = [tokenize(c) for c in section]
        rows.append((" ".join(cols[0]), " ".join(cols[1]), " ".join(cols[2]), " ".join(cols[3])))
        for term in set().union(*cols):
            df[term] = df.get(term, 0) + 1
    # A page's columns are its sections' columns joined: each text is tokenized once.
    page = (
        " ".join(tokenize(title)),
        " ".join(r[0] for r in rows),
        " ".join(r[2] for r in rows),
        " ".join(r[3] for r in rows),
    )
    df[TOTAL] = len(rows)
    return page, tuple(rows), df


def pack_terms(df: dict[str, int]) -> bytes:
    return zlib.compress(json.dumps(df, ensure_ascii=False).encode("utf-8"), 1)


def term_counts(terms: bytes | None) -> dict[str, int]:
    """A page's {term: sections holding it} (empty for an unlisted page)."""
    return json.loads(zlib.decompress(terms)) if terms else {}


def pack_text(text: str) -> str | bytes:
    """A section's text as stored: zlib'd bytes when that is smaller (a short text stays as it is)."""
    if len(text) < PACK_MIN_CHARS:
        return text
    packed = zlib.compress(text.encode("utf-8"), ZLIB_LEVEL)
    return packed if len(packed) < len(text) else text


def unpack_text(value: str | bytes) -> str:
    return value if isinstance(value, str) else zlib.decompress(value).decode("utf-8")


def pack_link_words(pairs: Iterable[tuple[str, str]]) -> bytes:
    """A page's (target key, term) link words as stored with it, one target a line with its terms, zlib'd:
    what a rewrite or removal of the page takes back from its targets' counts. Sorted: the same pairs give the
    same bytes in any process (a set's order of strings changes with each one's hash seed)."""
    by_target: dict[str, list[str]] = {}
    for target, term in sorted(pairs):
        by_target.setdefault(target, []).append(term)
    text = "\n".join(f"{target}\t{' '.join(terms)}" for target, terms in by_target.items())
    return zlib.compress(text.encode("utf-8"), ZLIB_LEVEL)


def link_targets(blob: bytes | None) -> dict[str, frozenset[str]]:
    """A page's stored link words as target key → the terms its links to that page say."""
    text = zlib.decompress(blob).decode("utf-8") if blob else ""
    out = {}
    for line in text.split("\n") if text else ():
        target, _, terms = line.partition("\t")
        out[target] = frozenset(terms.split(" "))
    return out


def unpack_link_words(blob: bytes | None) -> set[tuple[str, str]]:
    """A page's stored link words as (target key, term) pairs."""
    return {(target, term) for target, terms in link_targets(blob).items() for term in terms}


def link_word_changes(
    stored: dict[str, bytes | None], pages: Sequence[tuple[str, Iterable[tuple[str, str]]]]
) -> tuple[list[tuple[str, str, int]], list[tuple[str, bytes | None]]]:
    """What writing pages' link words (`pages`: key, pairs; none for a page gone) changes, given the blobs
    stored for them: (target, term, +n or -n) of the counts, sorted (two writers lock rows in one order), and
    (key, blob or None to delete) of the pages whose words changed."""
    delta: dict[tuple[str, str], int] = {}
    blobs = []
    for key, pairs in pages:
        old, new = unpack_link_words(stored.get(key)), set(pairs)
        if old == new:
            continue
        for pair in new - old:
            delta[pair] = delta.get(pair, 0) + 1
        for pair in old - new:
            delta[pair] = delta.get(pair, 0) - 1
        blobs.append((key, pack_link_words(new) if new else None))
    return sorted((t, w, n) for (t, w), n in delta.items() if n), blobs


def like_pattern(fragment: str) -> str:
    """A LIKE pattern for text holding the fragment as written (`%`, `_` and `\\` escaped by a backslash, the
    escape character of both engines' LIKE as the stores write it)."""
    escaped = fragment.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"
