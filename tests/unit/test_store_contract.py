"""The store's contract, run on both engines: the SQLite file and PostgreSQL (a real server started by the
`postgres_server` fixture). Both index the same local fixture site through the real indexer, so reads, writes
and ranking are compared on the same pages; PostgreSQL's BM25 must equal SQLite's FTS5 scores."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator

import pytest
from conftest import SITE

from docs_mcp.crawl.indexer import Indexer
from docs_mcp.fetch.fetching import Fetcher
from docs_mcp.fetch.sources import SourceSet
from docs_mcp.settings import Settings
from docs_mcp.store.interface import COPIES_CAP, Scope
from docs_mcp.store.sqlite.store import SiteIndex
from docs_mcp.text.terms import tokenize

ENGINES = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
QUERIES = (
    "install package",
    "json parse",
    "configuration options",
    "ユーザーガイド",
    "error",
    "validate records",
)
#: Defined names, as the ranker asks for them: tokens of the name's last two parts, one phrase each.
NAMES = ("tidepool.load", "GaugeReader.validate_records", "RecordWriter", "station")


def _open(engine: str, request: pytest.FixtureRequest, tmp_path):
    if engine == "sqlite":
        return SiteIndex(tmp_path / "index.sqlite")
    from docs_mcp.store.postgres.store import PostgresStore

    return PostgresStore(request.getfixturevalue("postgres_url"))


def _parts():
    sources = SourceSet.from_specs([str(SITE)])
    settings = Settings(cache_dir=None)
    return sources, settings, Fetcher(sources, settings)


def _indexed(store):
    """The fixture site indexed into `store` by the real indexer (one process), and its scope."""
    sources, settings, fetcher = _parts()
    asyncio.run(Indexer(sources, settings, fetcher, store, workers=1).run())
    return store, Scope.of(sources.sources)


@pytest.fixture(params=ENGINES)
def store(request, tmp_path) -> Iterator:
    """An empty store of each engine."""
    index = _open(request.param, request, tmp_path)
    yield index
    index.close()


@pytest.fixture(scope="module")
def sqlite_site(tmp_path_factory):
    """The fixture site indexed into SQLite: the reference the other engine is compared with."""
    index, scope = _indexed(SiteIndex(tmp_path_factory.mktemp("ref") / "index.sqlite"))
    yield index, scope
    index.close()


def test_an_indexed_site_reads_back_its_pages_documents_and_headings(store):
    index, scope = _indexed(store)
    keys = sorted(p.key for p in index.pages(scope))
    assert any(k.endswith("sphinx.html") for k in keys) and index.page_count(scope) == len(keys)
    key = next(k for k in keys if k.endswith("sphinx.html"))
    doc = index.load_document(key)
    assert doc is not None and doc.title
    assert index.headings(key) and all(level > 0 for level, _, _ in index.headings(key))
    assert index.section_count() >= len(keys)
    assert index.newest(scope) > 0 and index.newest(Scope(("https://elsewhere.invalid/",))) == 0
    # Stale pages are counted by when they were last fetched: none before the build, all before now.
    assert index.older_than(scope, 0.0) == 0
    assert index.older_than(scope, time.time() + 1) == len(keys)
    assert index.older_than(Scope(("https://elsewhere.invalid/",)), time.time() + 1) == 0


def test_page_ids_are_never_reused_and_a_removed_page_takes_its_terms_back(store):
    index, scope = _indexed(store)
    key = next(p.key for p in index.pages(scope) if p.key.endswith("sphinx.html"))
    with index.reading() as r:
        before = {row.key: row.id for row in r.page_rows(range(1, 10_000))}
        df_before, total_before = r.doc_freq(["sphinx"], scope)
    index.remove(key)
    with index.reading() as r:
        df_after, total_after = r.doc_freq(["sphinx"], scope)
        assert key not in {row.key for row in r.page_rows(range(1, 10_000))}
    assert total_after < total_before and df_after.get("sphinx", 0) <= df_before.get("sphinx", 0)
    asyncio.run(Indexer(*_parts(), index, workers=1).run())  # the page comes back
    with index.reading() as r:
        again = {row.key: row.id for row in r.page_rows(range(1, 10_000))}
    assert again[key] > max(before.values())


def test_section_vectors_are_stored_for_listed_pages_and_found_by_model_and_scope(store):
    index, scope = _indexed(store)
    with index.reading() as r:
        ids = sorted(row.id for row in r.page_rows(range(1, 10_000)))
        before = r.vector_pages("m", scope)  # vectors the build stored itself, with the semantic extra
        keys = {row.id: row.key for row in r.page_rows(ids)}
    missing = index.without_vectors("m", scope, 1000)  # (id, key) by id: what a fill computes vectors for
    assert missing and [pid for pid, _ in missing] == sorted(pid for pid in ids if pid in dict(missing))
    assert all(keys[pid] == key and pid not in before for pid, key in missing)
    assert index.without_vectors("m", scope, 2, after=missing[0][0]) == missing[1:3]
    fresh = [pid for pid in ids[:3] if pid not in before]
    assert index.put_vectors("m", [(pid, bytes([pid % 256, 1])) for pid in fresh]) == len(fresh)
    assert not {pid for pid, _ in index.without_vectors("m", scope, 1000)} & set(fresh)
    assert index.put_vectors("m", [(max(ids) + 1000, b"\x00")]) == 0  # a page since removed: skipped
    with index.reading() as r:
        assert r.vector_pages("m", scope) == sorted({*before, *fresh})
        assert r.vector_pages("m", Scope(("https://elsewhere.invalid/",))) == []
        assert r.vector_pages("other", scope) == []
        stored = dict(r.vectors("m", fresh))
    assert stored == {pid: bytes([pid % 256, 1]) for pid in fresh}


def test_pages_holding_a_term_are_those_whose_text_holds_it(store):
    index, scope = _indexed(store)
    with index.reading() as r:
        ids = [row.id for row in r.page_rows(range(1, 10_000))]
        holding = r.pages_holding("tidepool", ids)
        assert holding and set(holding) < set(ids)
        assert {p for p, _ in r.page_matches(["tidepool"], scope, 1000)} == set(holding)
        # Asked again once the ranking has read the term's rows (PostgreSQL answers from those): the same.
        assert sorted(r.pages_holding("tidepool", ids)) == sorted(holding)
        assert r.pages_holding("tidepool", ids[:1]) == [p for p in ids[:1] if p in holding]
        assert r.pages_holding("tidepool", []) == [] and r.pages_holding("zzzqqq", ids) == []


def test_sections_are_found_by_their_place_and_those_following_a_heading_in_page_order(store):
    index, scope = _indexed(store)
    key = next(p.key for p in index.pages(scope) if p.key.endswith("sphinx.html"))
    doc = index.load_document(key)
    with index.reading() as r:
        (page,) = [row.id for row in r.page_rows(range(1, 10_000)) if row.key == key]
        by_anchor = {row.anchor: row for row in r.section_rows(range(1, 100_000)) if row.page_id == page}
        first, last = by_anchor[doc.sections[0].id], by_anchor[doc.sections[-1].id]
        after = r.following_sections([first.id], 2)
        assert [row.anchor for row in after] == [doc.sections[1].id, doc.sections[2].id]
        assert after[0] == by_anchor[doc.sections[1].id]  # the whole row, its text unpacked
        assert r.following_sections([last.id], 3) == []  # the page's last section: nothing below it
        places = [(page, 0), (page, len(doc.sections) - 1), (page, len(doc.sections)), (10**9, 0)]
        assert r.section_ids_at(places) == {(page, 0): first.id, (page, len(doc.sections) - 1): last.id}
        assert r.section_ids_at([]) == {}


def test_keyword_entries_lift_their_target_best_first_and_go_with_their_index_page(store):
    from docs_mcp.crawl.rows import prepare_page

    index, scope = _indexed(store)
    target = next(p.key for p in index.pages(scope) if p.key.endswith("sphinx.html"))
    listing = target.rsplit("/", 1)[0] + "/genindex-contract.html"
    entries = [("tide gauge datum", target, "datum"), ("gauge", target, "gauge"), ("gauge", "nowhere", "x")]
    index.write(prepare_page(listing, index.load_document(target), listed=False, keywords=entries))
    with index.reading() as r:
        found = r.keyword_matches(tokenize("gauge datum"), scope, 10)  # as the ranker asks: indexed tokens
        target_id = next(row.id for row in r.page_rows(range(1, 10_000)) if row.key == target)
        assert [(pid, anchor) for pid, anchor, _, _ in found] == [(target_id, "datum"), (target_id, "gauge")]
        assert found[0][2] == " ".join(tokenize("tide gauge datum")) and found[0][3] > found[1][3] > 0
        assert r.keyword_matches(tokenize("gauge"), Scope(("https://elsewhere.invalid/",)), 10) == []
        assert r.page_titles([target, "https://elsewhere.invalid/"]) == [
            (target, index.load_document(target).title)
        ]
    index.remove(listing)
    with index.reading() as r:
        assert r.keyword_matches(tokenize("gauge datum"), scope, 10) == []


def test_another_roots_pages_and_entries_leave_a_scopes_statistics_and_scores_as_they_were(store):
    from docs_mcp.crawl.rows import prepare_page

    index, scope = _indexed(store)
    keys = sorted(p.key for p in index.pages(scope))
    target = next(k for k in keys if k.endswith("sphinx.html"))
    entries = [("tide gauge datum", target, "datum"), ("gauge", target, "gauge")]
    listing = target.rsplit("/", 1)[0] + "/genindex-contract.html"
    index.write(prepare_page(listing, index.load_document(target), listed=False, keywords=entries))
    terms, phrases = tokenize("tidepool load gauge datum records"), [" ".join(tokenize(n)) for n in NAMES]

    def seen() -> tuple:
        with index.reading() as r:
            key_of = {row.id: row.key for row in r.page_rows(range(1, 10_000))}
            return (
                r.doc_freq(terms, scope),
                [(key_of[p], s) for p, _, s in r.section_matches(terms, scope, 50)],
                [(key_of[p], s) for p, s in r.page_matches(terms, scope, 50)],
                [(key_of[p], n) for p, _, n in r.name_matches(phrases, scope, 50)],
                [(key_of[p], a, s) for p, a, _, s in r.keyword_matches(terms, scope, 10)],
                [r.best_section(p, terms, scope) for p, _ in r.page_matches(terms, scope, 10)],
            )

    alone = seen()
    assert all(alone) and alone[4][0][1] == "datum"
    # Another root with the same words: copies of the site's pages, and an index of its own listing them.
    copied = [k for k in keys if k.endswith(("sphinx.html", "api-1.html", "index.html", "mkdocs.html"))]
    other = [f"https://other.example/docs/{k.rsplit('/', 1)[1]}" for k in copied]
    for key, theirs in zip(copied, other, strict=True):
        index.write(prepare_page(theirs, index.load_document(key)))
    listing_there = "https://other.example/docs/genindex.html"
    doc = index.load_document(target)
    index.write(prepare_page(listing_there, doc, listed=False, keywords=[("gauge", other[0], "x")] * 5))
    assert seen() == alone
    for key in [*other, listing_there]:
        index.remove(key)
    assert seen() == alone


def test_an_index_page_rewritten_lists_exactly_its_new_entries(store):
    from docs_mcp.crawl.rows import prepare_page

    index, scope = _indexed(store)
    target = next(p.key for p in index.pages(scope) if p.key.endswith("sphinx.html"))
    listing = target.rsplit("/", 1)[0] + "/genindex-contract.html"
    doc = index.load_document(target)
    kept, dropped = ("tide gauge datum", target, "datum"), ("gauge", target, "gauge")
    index.write(prepare_page(listing, doc, listed=False, keywords=[kept, dropped, dropped]))
    # Rewritten: one entry kept, one of the two copies of another dropped, one added.
    index.write(
        prepare_page(listing, doc, listed=False, keywords=[kept, dropped, ("gauge", target, "level")])
    )
    with index.reading() as r:
        found = r.keyword_matches(tokenize("gauge datum"), scope, 10)
    assert sorted(anchor for _, anchor, _, _ in found) == ["datum", "gauge", "level"]
    index.write(prepare_page(listing, doc, listed=False, keywords=[kept]))
    with index.reading() as r:
        assert [anchor for _, anchor, _, _ in r.keyword_matches(tokenize("gauge datum"), scope, 10)] == [
            "datum"
        ]


def test_link_words_say_what_pages_link_with_and_go_with_a_rewrite_or_removal_of_the_linking_page(store):
    from docs_mcp.crawl.rows import prepare_page

    index, scope = _indexed(store)
    target = next(p.key for p in index.pages(scope) if p.key.endswith("sphinx.html"))
    first, second = (target.rsplit("/", 1)[0] + f"/links-{n}.html" for n in ("a", "b"))
    doc = index.load_document(target)
    sextant, tidewater = tokenize("sextant tidewater")
    index.write(prepare_page(first, doc, link_words=((target, sextant), (target, tidewater))))
    index.write(
        prepare_page(second, doc, link_words=((target, sextant), ("https://elsewhere.invalid/", "x")))
    )

    def said() -> list[str]:
        with index.reading() as r:
            tid = next(row.id for row in r.page_rows(range(1, 10_000)) if row.key == target)
            assert r.inbound_terms([], [sextant]) == [] and r.inbound_terms([tid], []) == []
            return sorted(
                term for pid, term in r.inbound_terms([tid], [sextant, tidewater, "gauge"]) if pid == tid
            )

    assert said() == sorted([sextant, tidewater])
    index.write(prepare_page(first, doc, link_words=((target, sextant), (target, tidewater))))  # as it was
    assert said() == sorted([sextant, tidewater])
    index.write(prepare_page(first, doc))  # rewritten without its links: the second page still says one word
    assert said() == [sextant]
    index.remove(second)
    assert said() == []


def test_a_page_s_links_are_read_back_as_the_pages_they_point_at_with_their_words(store):
    from docs_mcp.crawl.rows import prepare_page

    index, scope = _indexed(store)
    target = next(p.key for p in index.pages(scope) if p.key.endswith("sphinx.html"))
    listing = target.rsplit("/", 1)[0] + "/links-a.html"
    doc = index.load_document(target)
    sextant, tidewater = tokenize("sextant tidewater")
    pairs = ((target, sextant), (target, tidewater), ("https://elsewhere.invalid/", "x"))
    index.write(prepare_page(listing, doc, link_words=pairs))

    def links() -> dict[str, dict[str, frozenset[str]]]:
        """Per page key (of the listing and the page it links to): the keys it points at, with their words."""
        with index.reading() as r:
            assert r.links_from([]) == {}
            keys = {row.id: row.key for row in r.page_rows(range(1, 10_000)) if row.key in (listing, target)}
            return {keys[pid]: found for pid, found in r.links_from(list(keys)).items()}

    found = links()
    assert found[listing] == {
        target: frozenset({sextant, tidewater}),
        "https://elsewhere.invalid/": frozenset({"x"}),
    }
    assert tidewater not in {w for words in found[target].values() for w in words}  # the target's own links
    index.write(prepare_page(listing, doc))  # rewritten without its links: it points at nothing
    assert set(links()) == {target}


def test_the_audit_reads_the_listed_pages_and_the_words_links_say_most_of_a_page(store):
    from docs_mcp.crawl.rows import prepare_page

    index, scope = _indexed(store)
    target = next(p.key for p in index.pages(scope) if p.key.endswith("sphinx.html"))
    doc = index.load_document(target)
    sextant, tidewater = tokenize("sextant tidewater")
    for n, words in enumerate(((sextant, tidewater), (sextant,))):
        index.write(
            prepare_page(
                target.rsplit("/", 1)[0] + f"/links-{n}.html",
                doc,
                link_words=tuple((target, w) for w in words),
            )
        )
    with index.reading() as r:
        pages = r.listed_pages(scope)
        listed = [key for key, _ in pages]
        words = r.inbound_words(target, 100)  # the fixture's own links to the page say words too
        # Two new pages say one word, one the other: the word more pages say comes first; a limit keeps the first.
        assert words.index(sextant) < words.index(tidewater)
        assert r.inbound_words(target, 1) == words[:1] and len(words) == len(set(words))
        assert r.listed_pages(Scope(("https://elsewhere.invalid/",))) == []
        assert dict(pages)[target] == doc.title
    assert target in listed and sorted(listed) == listed
    assert set(listed) <= {p.key for p in index.pages(scope)}
    assert not any(
        k.endswith(("genindex.html", "search.html")) for k in listed
    )  # generated listings unlisted


def test_a_page_holding_another_page_sections_is_found_by_their_digests_and_goes_with_its_removal(store):
    from docs_mcp.crawl.rows import prepare_page

    index, scope = _indexed(store)
    target = next(p.key for p in index.pages(scope) if p.key.endswith("sphinx.html"))
    copy = target.rsplit("/", 1)[0] + "/reexported/sphinx.html"  # the same item under a second path
    index.write(prepare_page(copy, index.load_document(target)))
    with index.reading() as r:
        rows = {row.key: row.id for row in r.page_rows(range(1, 10_000))}
        page, other = rows[target], rows[copy]
        sections, digested, words = r.page_shapes([page])[page]
        shape = (sections, digested, words)
        assert r.page_shapes([page, other]) == {page: shape, other: shape}
        assert sections >= digested > 0
        ids = [row.id for row in r.section_rows(range(1, 100_000)) if row.page_id == page]
        # Its words are its section texts' tokens, as full-text search counts them.
        assert words == sum(len(tokenize(row.text)) for row in r.section_rows(ids)) > sections
        copies = r.section_copies(ids, scope)
        assert {o for _, o, _ in copies} == {other} and len(copies) == digested
        assert {s for s, _, _ in copies} <= set(ids)
        assert r.section_copies(ids, Scope(("https://elsewhere.invalid/",))) == []
        assert r.shared_digests(page, scope, other) == digested == r.shared_digests(other, scope, page)
        assert r.shared_digests(page, scope) == digested  # any other page: here, the copy
        # Only the scope's pages count, and with `most`, only pages with no more digests than that.
        assert r.shared_digests(page, Scope(("https://elsewhere.invalid/",))) == 0
        assert r.shared_digests(page, scope, most=digested) == digested
        assert r.shared_digests(page, scope, most=digested - 1) == 0
    # Another root holding the page COPIES_CAP times over: boilerplate there, still a copy here.
    theirs = [f"https://other.example/docs/{n}/sphinx.html" for n in range(COPIES_CAP)]
    index.write_many([prepare_page(key, index.load_document(target)) for key in theirs])
    with index.reading() as r:
        assert r.section_copies(ids, scope) == copies
    for key in theirs:
        index.remove(key)
    index.remove(copy)
    with index.reading() as r:
        assert r.section_copies(ids, scope) == [] and r.page_shapes([other]) == {}
        assert r.shared_digests(page, scope, other) == 0 == r.shared_digests(page, scope)


def test_a_heading_with_no_text_of_its_own_is_told_by_the_first_digested_section_under_it(store):
    from docs_mcp.crawl.rows import prepare_page

    index, scope = _indexed(store)
    target = next(p.key for p in index.pages(scope) if p.key.endswith("api-1.html"))
    index.write(prepare_page(target.rsplit("/", 1)[0] + "/mirror/api-1.html", index.load_document(target)))
    with index.reading() as r:
        page = next(row.id for row in r.page_rows(range(1, 10_000)) if row.key == target)
        ids = [row.id for row in r.section_rows(range(1, 100_000)) if row.page_id == page]
        held = {s for s, _, _ in r.section_copies(ids, scope)}  # every digested section: the mirror has them
        below = r.digested_below(ids)
    assert below and set(below) <= set(ids) - held and set(below.values()) <= held
    assert all(k < v for k, v in below.items())  # under it: after it in the page


def test_a_copy_whose_sections_each_end_on_one_more_sentence_is_a_copy_only_when_near_copies_count(store):
    from dataclasses import replace

    from docs_mcp.crawl.rows import prepare_page, section_digest, trimmed_digest

    index, scope = _indexed(store)
    target = next(p.key for p in index.pages(scope) if p.key.endswith("sphinx.html"))
    doc = index.load_document(target)
    closing = " See also the lists of every function."  # a line a generator adds under every section
    copy = target.rsplit("/", 1)[0] + "/c3ref/sphinx.html"
    index.write(
        prepare_page(
            copy, replace(doc, sections=tuple(replace(s, text=s.text + closing) for s in doc.sections))
        )
    )
    met = sum(
        1
        for s in doc.sections
        if section_digest(s.text) and trimmed_digest(s.text + closing) == section_digest(s.text)
    )
    with index.reading() as r:
        rows = {row.key: row.id for row in r.page_rows(range(1, 10_000))}
        page, other = rows[target], rows[copy]
        ids = [row.id for row in r.section_rows(range(1, 100_000)) if row.page_id == page]
        assert (
            met > 0 and r.page_shapes([other])[other][1] == r.page_shapes([page])[page][1]
        )  # sections, not rows
        near = r.section_copies(ids, scope)
        assert {o for _, o, _ in near} == {other} and len(near) == met
        assert r.section_copies(ids, scope, near=False) == []
        assert r.shared_digests(page, scope, other) == met == r.shared_digests(other, scope, page)
        assert (
            r.shared_digests(page, scope, other, near=False) == 0 == r.shared_digests(page, scope, near=False)
        )
    index.remove(copy)
    with index.reading() as r:
        assert r.section_copies(ids, scope) == [] and r.shared_digests(page, scope) == 0


def test_the_sources_held_are_listed_sized_and_one_is_forgotten_whole(store):
    from docs_mcp.model.progress import BUILD_META

    index, scope = _indexed(store)
    root = SourceSet.from_specs([str(SITE)]).sources[0].root
    index.set_meta(BUILD_META + "https://other.example/docs/", '{"at": 1}')
    index.set_meta("schema-like", "x")  # another meta value: not a source
    held = index.metas(BUILD_META)
    assert [k for k, _ in held] == [BUILD_META + root, BUILD_META + "https://other.example/docs/"]
    assert '"reached": true' in dict(held)[BUILD_META + root]
    size = index.footprint(scope)
    assert 100_000 < size < 10_000_000  # 17 pages' documents, sections and vectors
    assert index.footprint(Scope(("https://other.example/docs/",))) == 0
    keys = [p.key for p in index.pages(scope)]
    assert index.forget(BUILD_META + root, keys) == len(keys) == 17
    assert index.page_count(scope) == 0 and index.footprint(scope) == 0
    assert [k for k, _ in index.metas(BUILD_META)] == [BUILD_META + "https://other.example/docs/"]
    with index.reading() as r:
        assert r.doc_freq(["sphinx"], scope)[0].get("sphinx", 0) == 0  # its terms went with the pages
    assert index.meta("schema-like") == "x"


def test_meta_touch_and_a_snapshot_that_does_not_see_a_later_write(store):
    store.set_meta("built", "1")
    store.set_meta("built", "2")
    assert store.meta("built") == "2" and store.meta("absent") is None
    with store.reading() as outer, store.reading() as inner:
        assert inner is outer
        assert outer.meta("built") == "2"
        done = threading.Event()
        threading.Thread(target=lambda: (store.set_meta("built", "3"), done.set())).start()
        assert done.wait(10)  # a writer never waits for a reader
        assert outer.meta("built") == "2"  # this snapshot still reads what it began with
    assert store.meta("built") == "3"


def test_one_build_lock_per_root_and_the_holder_is_named(store):
    first, second = store.build_lock("https://docs.example/"), store.build_lock("https://docs.example/")
    other = store.build_lock("https://other.example/")
    assert first.try_acquire()
    try:
        assert not second.try_acquire()
        assert second.holder()
        assert other.try_acquire()
        other.release()
    finally:
        first.release()
    assert second.try_acquire()
    second.release()


@pytest.mark.postgres
@pytest.mark.timeout(120)  # the whole index and a part of it, each query on both engines
def test_postgres_ranks_exactly_as_sqlite_fts5(sqlite_site, request, tmp_path):
    reference, scope = sqlite_site
    index, _ = _indexed(_open("postgres", request, tmp_path))
    try:
        key_of = {}
        for name, store in (("sqlite", reference), ("postgres", index)):
            with store.reading() as r:
                key_of[name] = {row.id: row.key for row in r.page_rows(range(1, 10_000))}
        # The whole index (FTS5's own bm25 in SQLite), and a part of it: the scope's own statistics.
        part = Scope((scope.prefixes[0] + "api-", scope.prefixes[0] + "s"))
        for query, within in [(q, w) for q in QUERIES for w in (scope, part)]:
            terms = sorted(set(tokenize(query)))
            got = {}
            for name, store in (("sqlite", reference), ("postgres", index)):
                with store.reading() as r:
                    # Every match of the part (its copies of api pages tie: no cut-off between them).
                    limit = 50 if within == scope else 1000
                    pages = r.page_matches(terms, within, limit)
                    sections = r.section_matches(terms, within, limit)
                    got[name] = (
                        sorted((key_of[name][p], round(s, 9)) for p, s in pages),
                        sorted((key_of[name][p], round(s, 9)) for p, _, s in sections),
                        r.doc_freq(terms, within),
                    )
            assert got["postgres"] == got["sqlite"], (query, within)
            assert within == part or (got["sqlite"][0] and got["sqlite"][1]), query  # not vacuous
        phrases = [" ".join(tokenize(n)) for n in NAMES]
        found = {}
        for name, store in (("sqlite", reference), ("postgres", index)):
            with store.reading() as r:
                matches = r.name_matches(phrases, scope, 50)
                best = r.best_section(matches[0][0], ["tidepool"], scope)
                in_part = [(key_of[name][p], n) for p, _, n in r.name_matches(phrases, part, 50)]
                in_part += [
                    r.section_rows([r.best_section(p, ["gauge", "data"], part)])[0][2:]
                    for p, _ in r.page_matches(["gauge", "data"], part, 10)
                ]
                found[name] = (
                    [(key_of[name][p], n) for p, _, n in matches],
                    r.section_rows([best])[0][2:],
                    in_part,
                )
        assert found["postgres"] == found["sqlite"] and len(found["sqlite"][0]) >= 4 and found["sqlite"][2]
        words = sorted({t for text in (*QUERIES, *NAMES) for t in tokenize(text)})
        said = {}  # the words the fixture site's own links give its pages, as each engine stored them
        for name, store in (("sqlite", reference), ("postgres", index)):
            with store.reading() as r:
                said[name] = sorted(
                    (key_of[name][p], t) for p, t in r.inbound_terms(list(key_of[name]), words)
                )
        assert said["postgres"] == said["sqlite"] and len(said["sqlite"]) >= 3, said["sqlite"]
    finally:
        index.close()


def _rankings(store, scope) -> list:
    """Every query's pages and sections (by address) with their scores, and the pages holding its first term."""
    with store.reading() as r:
        key_of = {row.id: row.key for row in r.page_rows(range(1, 10_000))}
        out = []
        for query in QUERIES:
            terms = sorted(set(tokenize(query)))
            pages = r.page_matches(
                terms, scope, 10_000
            )  # all: no tie at a cut (page ids differ between engines)
            sections = r.section_matches(terms, scope, 10_000)
            out.append(
                (
                    sorted((key_of[p], round(s, 9)) for p, s in pages),
                    sorted((key_of[p], round(s, 9)) for p, _, s in sections),
                    sorted(key_of[p] for p in r.pages_holding(terms[0], list(key_of))),
                )
            )
    return out


@pytest.mark.postgres
@pytest.mark.parametrize(
    "bundle_pages, merge_rows",
    # The crawl's small bundles merged every 4 pages (32 on a real site); or once they hold 50 term rows (a
    # page or two here), each merge into the last one's bundle until it holds 32 pages.
    [(4, 2048), (32, 50)],
)
def test_bundles_merged_then_pages_removed_one_by_one_leave_postgres_ranking_exactly_as_sqlite(
    sqlite_site, request, tmp_path, bundle_pages, merge_rows
):
    reference = _indexed(SiteIndex(tmp_path / "index.sqlite"))[0]
    index = _open("postgres", request, tmp_path)
    index._upkeep.bundle_pages, index._upkeep.merge_rows = bundle_pages, merge_rows
    index, scope = _indexed(index)
    with index.reading() as r:
        merged = r.db.execute("SELECT count(*), max(pages) FROM bundles").fetchone()
    assert merged[1] >= 4 and merged[0] <= index.page_count() / 2  # merged, not one bundle a page
    try:
        keys = sorted(p.key for p in index.pages(scope))
        # Every other page, then all but one: bundles left with dead pages, rewritten without them, emptied.
        for round_ in (keys[::2], keys[1::2][:-1]):
            for key in round_:
                reference.remove(key)
                index.remove(key)
            assert _rankings(index, scope) == _rankings(reference, scope)
        with index.reading() as r:
            bundles = r.db.execute("SELECT count(*), coalesce(sum(live), 0) FROM bundles").fetchone()
            terms = r.db.execute("SELECT count(DISTINCT bundle) FROM terms").fetchone()[0]
        assert bundles == (1, 1) and terms == 1  # the emptied bundles' rows are gone
    finally:
        index.close()
        reference.close()


@pytest.mark.postgres
def test_an_unreachable_database_is_an_unavailable_index_with_its_address_and_no_password():
    from docs_mcp.errors import IndexUnavailable
    from docs_mcp.store.postgres.store import open_postgres

    with pytest.raises(IndexUnavailable) as caught:
        open_postgres("postgresql://docs:secret@127.0.0.1:9/none?connect_timeout=1", 1.0)
    assert "127.0.0.1:9" in str(caught.value) and "secret" not in str(caught.value)
