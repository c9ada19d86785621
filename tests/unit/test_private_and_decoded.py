"""Indexed docs stay private to their owner, and text files are read by their byte-order mark."""

from __future__ import annotations

import logging
import stat

import pytest

from docs_mcp.fetch.bodies import decode
from docs_mcp.store.sqlite.store import SiteIndex


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_cache_folder_is_the_owners_alone_and_so_are_the_index_files(tmp_path):
    cache = tmp_path / "cache"
    index = SiteIndex(cache / "index.sqlite")
    index.set_meta("probe", "1")  # a write, so the WAL file exists too
    try:
        assert _mode(cache) == 0o700
        files = [p for p in cache.iterdir() if p.name.startswith("index.sqlite")]
        assert {p.name for p in files} >= {"index.sqlite", "index.sqlite-wal"}
        assert {p.name: _mode(p) for p in files} == {p.name: 0o600 for p in files}
    finally:
        index.close()


def test_a_cache_folder_others_can_read_is_kept_with_a_warning(tmp_path, caplog):
    cache = tmp_path / "shared-cache"
    cache.mkdir(mode=0o755)
    cache.chmod(0o755)
    with caplog.at_level(logging.WARNING, logger="docs_mcp"):
        index = SiteIndex(cache / "index.sqlite")
    index.close()
    assert _mode(cache) == 0o755  # the user's folder: not changed behind their back
    assert "readable by other local users" in caplog.text and f"chmod 700 {cache}" in caplog.text


@pytest.mark.parametrize("codec", ["utf-8-sig", "utf-16-le", "utf-16-be"])
def test_text_is_decoded_by_its_byte_order_mark_before_any_declared_charset(codec):
    text = "# Größe\n\nZeichen: 東京 — ünïcode"
    boms = {"utf-8-sig": b"", "utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}
    body = boms[codec] + text.encode(codec)
    assert decode(body, "iso-8859-1") == text
    assert decode(body, None) == text
