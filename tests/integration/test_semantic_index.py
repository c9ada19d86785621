"""The `semantic` extra in the site index: vectors stored with each page, kept in step, used by search; and
without the extra, nothing of it at all."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SITE, LocalSite

from docs_mcp import settings
from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser
from docs_mcp.crawl.rows import entry_rows, vector_input
from docs_mcp.errors import DocsMCPError
from docs_mcp.search.semantic import signal as semantic
from docs_mcp.search.semantic.scan import COARSE_OVERSAMPLE, SectionScan
from docs_mcp.search.semantic.vectors import VectorCache
from docs_mcp.search.site import ranker
from docs_mcp.store.interface import Scope
from docs_mcp.store.pagestream import unpack_places
from docs_mcp.store.vectors import unpack_vectors

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(180)]  # a subprocess waited on for up to 120 s

SRC = Path(__file__).resolve().parents[2] / "src"
LISTED = "SELECT count(*) FROM pages WHERE listed=1"
VECTORS = "SELECT count(*) FROM page_vectors"


def app_for(cache: Path, source: str) -> App:
    return App(
        parser().parse_args(["serve", "--cache-dir", str(cache), "--no-index", "--source", source]), workers=1
    )


async def build(app: App) -> None:
    try:
        await app.indexer.run()
    finally:
        await app.fetcher.aclose()


def count(app: App, sql: str, *args: object) -> int:
    return app.index.db.execute(sql, args).fetchone()[0]


def without_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a machine where the extra is not installed (whether or not it is here)."""
    monkeypatch.setattr(semantic, "_installed", lambda name: False)


# --- without the extra -----------------------------------------------------------------------------
async def test_without_the_extra_no_vectors_are_stored_and_the_ranking_is_the_lexical_one(
    site, tmp_path, monkeypatch
):
    without_extra(monkeypatch)
    assert semantic.active_model() is None
    app = app_for(tmp_path / "c", site.url)
    await build(app)
    assert count(app, LISTED) > 5
    assert count(app, VECTORS) == 0
    scope = Scope.of(app.sources.sources)
    queries = ["install the package", "tidal datum", "configure the gauge", "quillwort"]
    got = [app.search.ranker.search(q, 10, scope) for q in queries]
    monkeypatch.setattr(ranker, "SEMANTIC_WEIGHT", 0.0)  # the lexical ranker, by construction
    lexical = [app.search.ranker.search(q, 10, scope) for q in queries]
    assert got == lexical and any(got)


def test_a_misspelt_model_name_stops_the_app_at_start_with_the_names_it_takes(tmp_path, monkeypatch):
    monkeypatch.setattr(settings, "SEMANTIC_MODEL", "wordlama")
    with pytest.raises(DocsMCPError, match=r"'wordlama' is not a semantic model: use auto .*off, or one of"):
        app_for(tmp_path / "c", str(SITE))


_NO_EXTRA_RUN = """
import asyncio, json, sys
from docs_mcp.search.semantic import signal as semantic
semantic._installed = lambda name: False  # as without the extra, even where it is installed
from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser
from docs_mcp import settings
from docs_mcp.errors import DocsMCPError
app = App(parser().parse_args(["serve", "--cache-dir", sys.argv[1], "--no-index", "--source", sys.argv[2]]),
          workers=1)
asyncio.run(app.indexer.run())
app.search.warm()
hits = app.search.search("tidal datum gauge", 5)
heavy = sorted(m for m in ("wordllama", "tokenizers", "safetensors", "numpy") if m in sys.modules)
vectors = app.index.db.execute("SELECT count(*) FROM page_vectors").fetchone()[0]
print(json.dumps({"hits": len(hits), "imported": heavy, "vectors": vectors}))
"""


def test_without_the_extra_indexing_and_search_import_none_of_its_packages(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-c", _NO_EXTRA_RUN, str(tmp_path / "c"), str(SITE)],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out == {"hits": out["hits"], "imported": [], "vectors": 0} and out["hits"] > 0


# --- with the extra --------------------------------------------------------------------------------
@pytest.fixture
def extra():
    model = semantic.embedder("auto")  # the default model, the one indexing stores vectors of
    assert model is not None and model.name == semantic.active_model()
    return model


async def test_every_listed_page_stores_a_vector_per_section_then_per_long_entry_and_a_removed_page_takes_them(
    extra, site_copy: LocalSite, tmp_path
):
    app = app_for(tmp_path / "c", site_copy.url)
    await build(app)
    listed = count(app, LISTED)
    assert listed > 5 and count(app, VECTORS) == listed
    rows = app.index.db.execute(
        "SELECT p.key, v.model, length(v.vecs), (SELECT count(*) FROM sections s WHERE s.page_id=v.id) "
        "FROM page_vectors v JOIN pages p ON p.id=v.id"
    ).fetchall()
    entries = {}
    for key, model, size, sections in rows:
        _, doc = await app.tools.document(key)
        entries[key] = entry_rows(doc)
        assert model == extra.name and size == (extra.dim + 4) * (
            sections + len(entries[key])
        )  # int8, a scale
    assert sum(map(len, entries.values())) > 20  # the long reference page's methods
    key = app.index.db.execute("SELECT key FROM pages WHERE listed=1 ORDER BY id LIMIT 1").fetchone()[0]
    app.index.remove(key)
    assert count(app, VECTORS) == listed - 1
    assert (
        count(app, "SELECT count(*) FROM page_vectors v LEFT JOIN pages p ON p.id=v.id WHERE p.id IS NULL")
        == 0
    )
    unlisted = "SELECT count(*) FROM page_vectors v JOIN pages p ON p.id=v.id WHERE p.listed=0"
    assert count(app, unlisted) == 0


async def test_an_entry_of_a_long_section_is_stored_after_the_sections_at_a_share_of_its_cosine(
    extra, site, tmp_path
):
    import numpy as np

    app = app_for(tmp_path / "c", site.url)
    await build(app)
    key = site.url + "big-reference.html"
    _, doc = await app.tools.document(key)
    pid, blob = app.index.db.execute(
        "SELECT v.id, v.vecs FROM page_vectors v JOIN pages p ON p.id=v.id WHERE p.key=?", (key,)
    ).fetchone()
    stored = unpack_vectors(blob, extra.dim)
    entries = entry_rows(doc)
    assert len(stored) == len(doc.sections) + len(entries) and len(entries) > 20
    k = next(k for k, e in enumerate(entries) if e[0] == "TidePredictor.split_bins")
    name, place, text = entries[k]
    assert place.endswith("Comparison") and len(text) > 500  # one method of the class's comparison section
    own = extra.embed([semantic.section_text(name, place, text)])[0]
    row = stored[len(doc.sections) + k]
    assert np.allclose(row, semantic.ENTRY_VECTOR_SCALE * own, atol=4e-3)
    # A question in the entry's own words is nearer it than any section; the page's cosine is its share.
    qvec = extra.embed([text])[0]
    sections, entry = stored[: len(doc.sections)] @ qvec, float(row @ qvec)
    assert entry > float(sections.max())
    cache = VectorCache(1 << 24)
    cache.add(extra.name, extra.dim, [(pid, blob)])
    assert cache.cosines(extra.name, qvec, [pid])[pid] == pytest.approx(entry, abs=1e-3)


async def test_an_index_built_without_the_extra_gets_its_vectors_on_the_next_run(
    extra, site, tmp_path, monkeypatch
):
    app = app_for(tmp_path / "c", site.url)
    with monkeypatch.context() as m:
        without_extra(m)
        await build(app)
    assert count(app, VECTORS) == 0
    monkeypatch.setattr("docs_mcp.crawl.build.SEMANTIC_FILL_BATCH", 3)  # several batches
    again = app_for(tmp_path / "c", site.url)
    await build(again)  # every page is fresh: nothing is fetched, only the vectors are filled in
    assert count(again, VECTORS) == count(again, LISTED) > 5
    # The same vectors as a page indexed with the model: its sections', then its long sections' entries.
    filled = dict(
        again.index.db.execute("SELECT p.key, v.vecs FROM page_vectors v JOIN pages p ON p.id=v.id")
    )
    reference = site.url + "big-reference.html"
    for key in (reference, min(filled)):
        _, doc = await again.tools.document(key)
        assert filled[key] == semantic.encode_sections(*vector_input(doc), name=extra.name)
    sections = count(
        again, "SELECT count(*) FROM sections s JOIN pages p ON p.id=s.page_id AND p.key=?", reference
    )
    assert len(filled[reference]) > (extra.dim + 4) * sections  # entries' vectors after the sections'


async def test_an_index_of_another_models_vectors_gets_the_default_models_on_the_next_run(
    extra, site, tmp_path, monkeypatch
):
    with monkeypatch.context() as m:
        m.setattr(settings, "SEMANTIC_MODEL", "wordllama")  # 0.3.0's model: 256 dimensions
        first = app_for(tmp_path / "c", site.url)
        await build(first)
    assert {m for (m,) in first.index.db.execute("SELECT model FROM page_vectors")} == {"wordllama"}
    again = app_for(tmp_path / "c", site.url)
    await build(again)  # pages still fresh: only the vectors are computed again
    rows = again.index.db.execute("SELECT model, length(vecs) FROM page_vectors").fetchall()
    assert len(rows) == count(again, LISTED) > 5
    assert {m for m, _ in rows} == {extra.name} and all(size % (extra.dim + 4) == 0 for _, size in rows)


def vector_texts(app: App, key: str) -> list[str]:
    """What a page's section vectors are computed from, read from its stored sections (`section_text`)."""
    sql = "SELECT d.doc FROM page_data d JOIN pages p ON p.id=d.id WHERE p.key=?"
    paths, texts = unpack_places(app.index.db.execute(sql, (key,)).fetchone()[0])
    titles = app.index.db.execute(
        "SELECT s.title FROM sections s JOIN pages p ON p.id=s.page_id WHERE p.key=? ORDER BY s.ord", (key,)
    ).fetchall()
    return [semantic.section_text(t, p, x) for (t,), p, x in zip(titles, paths, texts, strict=True)]


async def test_at_full_weight_the_page_whose_section_is_closest_in_meaning_ranks_first(
    extra, site, tmp_path, monkeypatch
):
    import numpy as np

    app = app_for(tmp_path / "c", site.url)
    await build(app)
    scope = Scope.of(app.sources.sources)
    query = "install the package"  # lexically the DocBook chapter first; in meaning the Quickstart
    # The scan widens, thin pages lower (the fixture's Quickstart is short lines) and a page's number of sections
    # counts (the test below): this is the re-ranking by the best section alone.
    monkeypatch.setattr(settings, "ABLATED", frozenset({"scan", "page-kind", "cosine-breadth"}))
    monkeypatch.setattr(ranker, "SEMANTIC_WEIGHT", 0.0)
    lexical = [h.url for h in app.search.ranker.search(query, ranker.SEMANTIC_TOP, scope)]
    assert len(lexical) >= 3
    monkeypatch.setattr(ranker, "SEMANTIC_WEIGHT", 1.0)
    meaning = [h.url for h in app.search.ranker.search(query, 5, scope)]
    # Computed here independently: each page's best section cosine with the query.
    qvec = extra.embed([query])[0]
    best = {}
    for url in lexical:
        vecs = extra.embed(vector_texts(app, url))
        best[url] = float(np.max(vecs @ qvec))
    assert meaning[0] == max(best, key=best.get) != lexical[0]
    assert set(meaning) <= set(lexical)  # re-ordered, never widened


async def test_at_full_weight_a_pages_best_cosine_counts_less_the_more_rows_it_is_the_best_of(
    extra, site, tmp_path, monkeypatch
):
    import numpy as np

    app = app_for(tmp_path / "c", site.url)
    await build(app)
    scope = Scope.of(app.sources.sources)
    query = "read tide records"  # nearest: a row of the 372 of the big API reference
    # The cosine alone orders the head: no rule after the blend, the weight as set here whatever the query.
    after = {"page-kind", "pointers", "rank-safety", "versions", "query-weight"}
    monkeypatch.setattr(settings, "ABLATED", frozenset({"scan", *after}))
    monkeypatch.setattr(ranker, "SEMANTIC_WEIGHT", 0.0)
    lexical = [h.url for h in app.search.ranker.search(query, ranker.SEMANTIC_TOP, scope)]
    monkeypatch.setattr(ranker, "SEMANTIC_WEIGHT", 1.0)
    monkeypatch.setattr(
        semantic, "SEMANTIC_BREADTH_SPREAD", 0.1
    )  # wide enough to matter among the fixture's few pages
    fair = [h.url for h in app.search.ranker.search(query, 5, scope)]
    # Computed here from the stored rows: each page's best cosine, less 0.1 × √(2 ln rows).
    qvec = extra.embed([query])[0]
    sql = "SELECT v.vecs FROM page_vectors v JOIN pages p ON p.id=v.id WHERE p.key=?"
    best, rows = {}, {}
    for url in lexical:
        matrix = unpack_vectors(app.index.db.execute(sql, (url,)).fetchone()[0], extra.dim)
        best[url], rows[url] = float(np.max(matrix @ qvec)), matrix.shape[0]
    expected = {u: best[u] - 0.1 * np.sqrt(2 * np.log(rows[u])) for u in lexical}
    by = lambda score: sorted(lexical, key=lambda u: -score[u])[:3]  # noqa: E731
    assert fair[:3] == by(expected) != by(best)
    assert rows[by(best)[0]] > 300 and by(expected)[0] != by(best)[0]


async def test_the_scan_finds_the_pages_nearest_in_meaning_among_all_and_follows_a_removed_page(
    extra, site_copy: LocalSite, tmp_path
):
    import numpy as np

    app = app_for(tmp_path / "c", site_copy.url)
    await build(app)
    scope = Scope.of(app.sources.sources)
    qvec = extra.embed(["install the package"])[0]
    # Computed here independently: every listed page's best section cosine with the query.
    best = {}
    for (key,) in app.index.db.execute("SELECT key FROM pages WHERE listed=1").fetchall():
        best[key] = float(np.max(extra.embed(vector_texts(app, key)) @ qvec))
    expected = sorted(best, key=lambda k: -best[k])[:3]
    scan = SectionScan(1 << 24, recheck_seconds=0.0)
    keys = dict(app.index.db.execute("SELECT id, key FROM pages").fetchall())
    with app.index.reading() as reads:
        near = scan.nearest(reads, extra.name, extra.dim, qvec, scope, 3)
    assert [keys[p] for p in near] == expected
    # int8 rows with a scale, float16 in the scan's memory: within 5e-3
    assert list(near.values()) == pytest.approx([best[k] for k in expected], abs=5e-3)
    # One page wanted: the first dimensions pick 4 candidates of the site's pages, scored again at full size.
    assert len(best) > COARSE_OVERSAMPLE
    with app.index.reading() as reads:
        (nearest,) = scan.nearest(reads, extra.name, extra.dim, qvec, scope, 1)
    assert keys[nearest] == expected[0]
    app.index.remove(expected[0])
    with app.index.reading() as reads:
        after = scan.nearest(reads, extra.name, extra.dim, qvec, scope, 3)
    assert [keys[p] for p in after][:2] == expected[1:]
    with app.index.reading() as reads:  # a matrix past its bound is no scan, not an error
        assert (
            SectionScan(16, recheck_seconds=0.0).nearest(reads, extra.name, extra.dim, qvec, scope, 3) == {}
        )


async def test_with_parsing_processes_the_vectors_are_embedded_in_the_indexing_process_and_are_the_same(
    extra, site, tmp_path
):
    alone = app_for(tmp_path / "a", site.url)
    await build(alone)
    args = ["serve", "--cache-dir", str(tmp_path / "b"), "--no-index", "--source", site.url]
    pooled = App(parser().parse_args(args), workers=2)
    await build(pooled)
    query = "SELECT p.key, v.model, v.vecs FROM page_vectors v JOIN pages p ON p.id=v.id ORDER BY p.key"
    stored = alone.index.db.execute(query).fetchall()
    assert len(stored) == count(alone, LISTED) > 5
    assert pooled.index.db.execute(query).fetchall() == stored


def test_a_page_digested_without_embedding_leaves_its_vectors_to_the_caller_and_loads_no_model(site_copy):
    # In a fresh interpreter, as in a parsing process: the texts it returns embed to the vectors it would
    # have stored, and the model's packages are never imported there.
    script = f"""
import sys
from pathlib import Path
from docs_mcp.crawl.digest import digest
from docs_mcp.fetch.page import RawPage
from docs_mcp.fetch.sources import Location, SourceSet
source = SourceSet.from_specs([{site_copy.url!r}]).sources[0]
html = (Path({str(site_copy.directory)!r}) / "big-reference.html").read_text()
raw = RawPage(Location(source, source.root + "big-reference.html"), html, "html")
left = digest(raw, raw.location.key, embed=False)
print(len(left.page.vectors), left.page.vector_model == "", "tokenizers" in sys.modules, "numpy" in sys.modules)
from docs_mcp.crawl.rows import add_vectors
from docs_mcp.search.semantic.signal import active_model
print(add_vectors(left.page, left.vector_texts, active_model()) == digest(raw, raw.location.key).page)
"""
    env = {"PYTHONPATH": str(SRC), "PATH": ""}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0", "True", "False", "False", "True"]
