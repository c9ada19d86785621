"""Section vectors as both engines store them: int8 components with one float32 scale a row (a row's largest
component is ±127), half of float16's bytes. Cosines move by ~6e-4 (std; at most 4e-3) on JDK 17's java.base."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

#: Bytes of a row's scale, stored after every row's components.
_SCALE_BYTES = 4
#: Dimensions of the models whose float16 rows older indexes hold (search/semantic/embedders.py's MODELS), to
#: convert them; another model's rows are dropped (the next build embeds those pages again).
FLOAT16_DIMS = {"wordllama": 256, "wordllama-128": 128, "wordllama-64": 64, "minilm": 384}


def pack_vectors(vecs: np.ndarray) -> bytes:
    """Rows of vectors as stored: every row's int8 components, then every row's float32 scale."""
    import numpy as np

    peak = np.abs(vecs).max(axis=1, keepdims=True).astype(np.float32)
    scale = np.where(peak > 0, peak / 127, 1).astype(np.float32)
    components = np.clip(np.rint(vecs / scale), -127, 127).astype(np.int8)
    return components.tobytes() + scale.tobytes()


def unpack_vectors(blob: bytes, dim: int) -> np.ndarray | None:
    """The float32 rows `pack_vectors` stored; None for a blob that is not whole rows of `dim` components."""
    import numpy as np

    if not blob or len(blob) % (dim + _SCALE_BYTES):
        return None
    rows = len(blob) // (dim + _SCALE_BYTES)
    components = np.frombuffer(blob, dtype=np.int8, count=rows * dim).reshape(rows, dim)
    scale = np.frombuffer(blob, dtype=np.float32, offset=rows * dim).reshape(rows, 1)
    return components.astype(np.float32) * scale


def upgraded(model: str, blob: bytes) -> bytes | None:
    """A page's stored vectors in `pack_vectors`' form: converted from float16 rows (SQLite schema 13,
    PostgreSQL 12 and before), or as they are when already in it (a conversion run twice); None when neither
    (an unknown model, not whole rows). Float16 rows are told by their lengths: a section's is 1 (0.9 for an
    entry's, 0 for an empty text); int8 bytes read as float16 are not."""
    import numpy as np

    dim = FLOAT16_DIMS.get(model)
    if dim is None or not blob:
        return None
    if not len(blob) % (2 * dim):
        rows = np.frombuffer(blob, dtype=np.float16).reshape(-1, dim).astype(np.float32)
        with np.errstate(all="ignore"):
            norms = np.linalg.norm(rows, axis=1)
        if np.isfinite(norms).all() and ((norms < 1e-3) | (np.abs(norms - 0.95) < 0.15)).all():
            return pack_vectors(rows)
    return blob if unpack_vectors(blob, dim) is not None else None
