"""The semantic signal's blending and vector bookkeeping (no model needed), and the model (a dependency)."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest

from docs_mcp import settings
from docs_mcp.errors import DocsMCPError
from docs_mcp.search.semantic import signal as semantic
from docs_mcp.search.semantic.signal import (
    active_model,
    blend,
    embedder,
    encode_sections,
    rerank_pages,
    section_text,
    span_cosines,
    without_breadth,
    zscores,
)
from docs_mcp.search.semantic.vectors import VectorCache
from docs_mcp.store.vectors import FLOAT16_DIMS, pack_vectors, unpack_vectors, upgraded


def blob(*vectors: np.ndarray) -> bytes:
    return pack_vectors(np.stack(vectors))


def unit(*xs: float) -> np.ndarray:
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


# --- blending ------------------------------------------------------------------------------------
def test_zscores_center_and_scale_and_are_zero_when_nothing_varies():
    assert zscores([1.0, 2.0, 3.0]) == pytest.approx([-1.2247, 0.0, 1.2247], abs=1e-4)
    assert zscores([5.0, 5.0]) == [0.0, 0.0]
    assert zscores([]) == []


def test_blend_weight_moves_the_order_from_lexical_to_cosine():
    lexical, cosine = [3.0, 2.0, 1.0], [0.1, 0.5, 0.9]
    order = lambda scores: sorted(range(3), key=lambda i: -scores[i])  # noqa: E731
    assert order(blend(lexical, cosine, 0.0)) == [0, 1, 2]
    assert order(blend(lexical, cosine, 1.0)) == [2, 1, 0]
    # The scales do not matter, only each signal's spread: BM25 in the tens, cosines in tenths.
    assert blend([30.0, 20.0, 10.0], cosine, 0.5) == pytest.approx(blend(lexical, cosine, 0.5))


def test_work_beside_runs_on_another_thread_and_its_errors_reach_the_caller():
    started = threading.Event()

    def name() -> str:
        started.set()
        return threading.current_thread().name

    def fails() -> None:
        started.set()
        raise ValueError("no vector")

    result = semantic.beside(name)
    assert started.wait(10)  # taken up by a background thread (asked for before that, the caller does it)
    assert result().startswith("docs-mcp-semantic")
    started.clear()
    failed = semantic.beside(fails)
    assert started.wait(10)
    with pytest.raises(ValueError, match="no vector"):
        failed()


def test_with_every_background_thread_busy_the_caller_does_the_work_itself():
    release = threading.Event()
    busy = [semantic.beside(release.wait) for _ in range(semantic.BACKGROUND_THREADS)]
    try:
        waiting = semantic.beside(lambda: threading.current_thread().name)
        assert waiting() == threading.current_thread().name  # not queued behind the busy threads
    finally:
        release.set()
    assert all(done() for done in busy)


def test_blend_refuses_scores_that_do_not_pair_up():
    with pytest.raises(ValueError, match="2 lexical scores but 1 cosines"):
        blend([1.0, 2.0], [0.5], 0.5)


def test_rerank_pages_reorders_only_the_head_and_keeps_the_tail_below_in_its_order():
    combined = {1: 5.0, 2: 4.0, 3: 3.0, 4: 2.0, 5: 1.0}
    cosine = {1: 0.1, 2: 0.2, 3: 0.9}
    out = rerank_pages(combined, cosine, weight=0.9, top=3)
    ranked = sorted(out, key=lambda p: -out[p])
    assert ranked[0] == 3  # the head's best cosine wins at a high weight
    assert set(ranked[:3]) == {1, 2, 3}
    assert ranked[3:] == [4, 5]  # the tail is never promoted and keeps its order


def test_a_page_without_vectors_counts_as_average_and_no_vectors_changes_nothing():
    combined = {1: 3.0, 2: 2.0, 3: 1.0}
    out = rerank_pages(combined, {1: 0.1, 3: 0.5}, weight=1.0, top=3)
    assert sorted(out, key=lambda p: -out[p]) == [3, 2, 1]  # page 2 sits at the mean cosine, 0.3
    assert rerank_pages(combined, {}, weight=1.0, top=3) == combined
    assert rerank_pages(combined, {1: 0.1, 2: 0.9}, weight=0.0, top=3) == combined


def test_pages_found_by_their_vectors_alone_join_the_head_at_its_lowest_lexical_score():
    combined = {1: 5.0, 2: 4.0, 3: 3.0, 4: 2.0, 5: 1.0}
    cosine = {1: 0.2, 2: 0.1, 5: 0.3, 9: 0.9}
    out = rerank_pages(combined, cosine, weight=0.9, top=2, extra=[9, 5])
    ranked = sorted(out, key=lambda p: -out[p])
    assert ranked[0] == 9  # not among the lexical matches at all, nearest in meaning
    assert set(ranked[:4]) == {1, 2, 5, 9}  # page 5 pulled up from the tail by its vectors
    assert ranked[4:] == [3, 4]  # the rest of the tail below, in its order
    assert rerank_pages(combined, cosine, weight=0.9, top=2) == rerank_pages(
        combined, cosine, weight=0.9, top=2, extra=()
    )


def test_a_page_found_by_its_vectors_alone_is_a_hit_only_if_nearer_than_the_found_pages_on_average():
    combined = {1: 5.0, 2: 1.0}  # a small site: two pages share the query's words
    cosine = {1: 0.5, 2: 0.3, 8: 0.35, 9: 0.45}  # 8 and 9: the scan's nearest, sharing no word
    out = rerank_pages(combined, cosine, weight=0.6, top=150, extra=[9, 8])
    assert set(out) == {1, 2, 9}  # 8 is farther than the found pages' average (0.4): not a hit
    # The far page still sets the z-scores' scale: the two found pages keep their lexical order.
    assert sorted(out, key=lambda p: -out[p])[0] == 1


def test_a_pages_best_cosine_loses_what_the_number_of_its_rows_alone_gives_the_best_of_them():
    cosine = {1: 0.80, 2: 0.80, 3: 0.80, 4: 0.75}
    fair = without_breadth(cosine, {1: 1, 2: 500, 4: 3}, spread=0.03)
    assert fair[1] == fair[3] == 0.80  # one row, or rows unknown: the cosine as measured
    assert fair[2] == pytest.approx(0.80 - 0.03 * math.sqrt(2 * math.log(500)))  # ~0.694
    assert fair[4] == pytest.approx(0.75 - 0.03 * math.sqrt(2 * math.log(3)))  # ~0.705
    assert fair[4] > fair[2]  # a page of three sections above one of 500 a little nearer the query
    assert without_breadth(cosine, {2: 500}, spread=0.0) == cosine


# --- stored vectors ------------------------------------------------------------------------------
def test_vector_cache_scores_a_page_by_its_best_section_and_skips_blobs_of_another_size():
    cache = VectorCache(max_bytes=1 << 20)
    cache.add("m", 3, [(7, blob(unit(1, 0, 0), unit(0, 1, 0))), (9, blob(unit(0, 0, 1))), (8, b"\x00" * 10)])
    assert cache.missing("m", [7, 8, 9, 11]) == [8, 11]  # 8: written by a model of another size
    assert cache.missing("other", [7]) == [7]  # vectors of one model never answer for another
    q = unit(0, 1, 0.2)
    got = cache.cosines("m", q, [7, 9, 11])
    assert set(got) == {7, 9}
    assert got[7] == pytest.approx(float(unit(0, 1, 0) @ q), abs=4e-3)  # int8 storage
    assert got[9] == pytest.approx(float(unit(0, 0, 1) @ q), abs=4e-3)


def test_caches_count_the_rows_each_pages_best_cosine_is_the_best_of():
    cache = VectorCache(max_bytes=1 << 20)
    cache.add("m", 3, [(7, blob(unit(1, 0, 0), unit(0, 1, 0), unit(0, 0, 1))), (9, blob(unit(0, 0, 1)))])
    assert cache.rows("m", [7, 9, 11]) == {7: 3, 9: 1}
    assert cache.rows("other", [7]) == {}


def test_vector_cache_starts_over_past_its_size_bound():
    cache = VectorCache(max_bytes=3 * 4 * 3)  # three 3-dim float32 rows
    cache.add("m", 3, [(1, blob(unit(1, 0, 0), unit(0, 1, 0)))])
    cache.add("m", 3, [(2, blob(unit(0, 0, 1), unit(0, 1, 1)))])
    assert cache.missing("m", [1, 2]) == [1]


def test_section_text_puts_where_a_section_sits_before_its_text():
    assert section_text("Console backend", "Sending email", "Writes emails to stdout.") == (
        "Sending email > Console backend\nWrites emails to stdout."
    )
    assert section_text("Intro", "Intro", "x") == "Intro\nx"


def test_no_vectors_are_computed_when_the_model_is_off_or_not_installed(monkeypatch):
    monkeypatch.setattr(settings, "SEMANTIC_MODEL", "off")
    assert active_model() is None
    assert encode_sections([("t", "p", "text")]) == b""
    monkeypatch.setattr(settings, "SEMANTIC_MODEL", "auto")
    monkeypatch.setattr(semantic, "_installed", lambda name: False)
    assert active_model() is None
    assert encode_sections([("t", "p", "text")]) == b""
    monkeypatch.setattr(settings, "SEMANTIC_MODEL", "bert")
    with pytest.raises(
        DocsMCPError, match="DOCSLICE_SEMANTIC_MODEL='bert' is not a semantic model: use auto"
    ):
        active_model()


def test_model_names_are_checked_and_off_means_none():
    assert embedder("off") is None
    with pytest.raises(ValueError, match="unknown semantic model 'bert'"):
        embedder("bert")


# --- the model -----------------------------------------------------------------------------------
def test_wordllama_vectors_are_unit_length_and_close_in_meaning():
    model = embedder("wordllama")
    assert model is not None and model.dim == 256
    q, near, far, empty = model.embed(
        [
            "print outgoing emails to the terminal during development",
            "Console backend: instead of sending real emails it writes the emails to the standard output",
            "Table partitioning splits one large table into smaller physical pieces",
            "",
        ]
    )
    assert np.linalg.norm(q) == pytest.approx(1.0, abs=1e-5)
    assert float(q @ near) > float(q @ far) + 0.2
    assert not empty.any()  # an empty text is the zero vector, not NaN


def test_a_passage_embedded_from_its_lines_is_near_the_vector_of_its_whole_text(monkeypatch):
    text = "The console backend\n\n  writes every email\nto the standard output.\nNothing is sent."
    first, second, third, fourth = (0, 19), (21, 41), (42, 65), (66, 82)
    assert [text[a:b] for a, b in (second, third)] == ["  writes every email", "to the standard output."]
    # A passage is its first line, then each next line with the line breaks before it.
    spans = [[first, (first[1], second[1]), (second[1], third[1])], [third, (third[1], fourth[1])]]
    query = "print outgoing emails to the terminal"
    cosines = span_cosines(query, text, spans)
    model = embedder(active_model())
    q, one, two = model.embed([query, text[: third[1]], text[third[0] :]])
    # Each piece is tokenized as a text of its own, with one start token more: on lines of three words the
    # cosine moves by ~0.02.
    assert cosines == pytest.approx([float(q @ one), float(q @ two)], abs=0.03)
    assert cosines[0] > cosines[1] and float(q @ one) > float(q @ two)
    monkeypatch.setattr(settings, "SEMANTIC_MODEL", "off")
    assert span_cosines(query, text, spans) is None


def test_stored_vectors_are_the_models_vectors_in_section_order():
    model = embedder("wordllama")
    rows = [("Console backend", "Email", "writes emails to stdout"), ("Partitioning", "Tables", "split")]
    stored = unpack_vectors(encode_sections(rows, name="wordllama"), model.dim)
    direct = model.embed([section_text(*r) for r in rows])
    assert stored is not None and stored.shape == (2, model.dim)
    # int8 with a scale a row: within half a step of the row's largest component / 127
    assert (np.abs(stored - direct).max(axis=1) <= np.abs(direct).max(axis=1) / 254 + 1e-6).all()


def test_a_smaller_wordllama_is_the_first_columns_renormalised_and_stored_under_its_own_name():
    full, small = embedder("wordllama"), embedder("wordllama-64")
    assert small is not None and full is not None and (small.name, small.dim) == ("wordllama-64", 64)
    texts = ["sort a list in place", "order the items of a sequence", "open a file for writing"]
    a, b = full.embed(texts), small.embed(texts)
    assert np.allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-5)
    # Matryoshka: the first 64 columns of the full vectors, renormalised, are the small model's vectors.
    first = a[:, :64] / np.linalg.norm(a[:, :64], axis=1, keepdims=True)
    assert np.abs(first - b).max() < 1e-3
    assert float(b[0] @ b[1]) > float(b[0] @ b[2])  # still close in meaning


# --- the stored form: int8 and a scale a row -----------------------------------------------------
def test_stored_vectors_keep_each_cosine_within_four_thousandths_at_half_the_bytes_of_float16():
    rng = np.random.default_rng(7)
    rows = rng.normal(size=(200, 128)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    rows[100:] *= 0.9  # entries' rows
    stored = pack_vectors(rows)
    back = unpack_vectors(stored, 128)
    assert len(stored) == 200 * (128 + 4) and back is not None
    q = rows[:50] / np.linalg.norm(rows[:50], axis=1, keepdims=True)
    assert np.abs(back @ q.T - rows @ q.T).max() < 4e-3
    assert unpack_vectors(stored[:-1], 128) is None and unpack_vectors(b"", 128) is None


def test_float16_rows_of_an_older_index_are_converted_and_converted_rows_kept_as_they_are():
    model = embedder("wordllama-128")
    assert model is not None and FLOAT16_DIMS["wordllama-128"] == model.dim
    assert FLOAT16_DIMS["wordllama-64"] == embedder("wordllama-64").dim
    vecs = model.embed(["sort a list in place", "open a file for writing", ""])
    vecs[1] *= 0.9
    old = vecs.astype(np.float16).tobytes()
    new = upgraded("wordllama-128", old)
    assert new is not None and new != old and len(new) == 3 * (128 + 4)
    assert np.abs(unpack_vectors(new, 128) - vecs).max() < 4e-3
    assert upgraded("wordllama-128", new) == new  # a conversion run twice
    assert upgraded("wordllama-128", b"\x01" * 100) is None and upgraded("another", old) is None
