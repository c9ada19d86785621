"""Rows as the stores keep them (store/pagerows.py)."""

from __future__ import annotations

import os
import subprocess
import sys

from docs_mcp.store.pagerows import pack_link_words, unpack_link_words

PAIRS = [("guide/care.html", t) for t in ("sextant", "mirror", "adjust", "index", "arm")] + [
    ("guide/log.html", "noon"),
    ("guide/log.html", "latitud"),
]

PACK_A_SET = (
    "import sys; from docs_mcp.store.pagerows import pack_link_words; "
    "sys.stdout.write(pack_link_words(set(eval(sys.argv[1]))).hex())"
)


def test_link_words_pack_to_the_same_bytes_in_any_order_and_unpack_to_the_pairs():
    assert pack_link_words(PAIRS) == pack_link_words(reversed(PAIRS))
    assert unpack_link_words(pack_link_words(PAIRS)) == set(PAIRS)


def test_a_set_of_link_words_packs_to_the_same_bytes_whatever_the_process_hash_seed():
    # A set of strings iterates in an order that follows each process's hash seed: the stored blob must not.
    blobs = {
        subprocess.run(
            [sys.executable, "-c", PACK_A_SET, repr(PAIRS)],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(blobs) == 1
