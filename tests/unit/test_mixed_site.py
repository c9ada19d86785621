"""mixed_site.py: the mixed site made from a doc root's trees, its index linking each root page, and a clear error
naming the packages when a tree is missing."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))
from scale import mixed_site  # noqa: E402  (benchmarks/ is a folder of scripts, not a package)

TREES = (
    mixed_site.Tree("api", "jdk-doc/api", "jdk-doc"),
    mixed_site.Tree("gtk", "gtk-doc", "gtk-doc", ("gtk/index.html", "gdk/index.html"), ("glib/index.html",)),
)


def doc_root(tmp_path: Path, folders: tuple[str, ...]) -> Path:
    root = tmp_path / "doc"
    for folder in folders:
        (root / folder).mkdir(parents=True)
        (root / folder / "index.html").write_text(f"<title>{folder}</title>", encoding="utf-8")
    return root


def test_the_mix_links_each_tree_and_its_index_links_every_root_page_there_is(tmp_path):
    root = doc_root(tmp_path, ("jdk-doc/api", "gtk-doc/gtk", "gtk-doc/gdk"))
    dest = tmp_path / "mix"
    links = mixed_site.build(dest, root, TREES)
    assert links == ["api/index.html", "gtk/gtk/index.html", "gtk/gdk/index.html"]  # no GLib: optional
    assert (dest / "api").resolve() == (root / "jdk-doc/api").resolve()
    assert (dest / "gtk" / "gdk" / "index.html").read_text(encoding="utf-8") == "<title>gtk-doc/gdk</title>"
    hrefs = re.findall(r'href="([^"]+)"', (dest / "index.html").read_text(encoding="utf-8"))
    assert hrefs == links and all((dest / href).is_file() for href in hrefs)
    assert mixed_site.build(dest, root, TREES) == links  # made again in place


def test_a_missing_tree_names_the_package_to_install_and_makes_nothing(tmp_path):
    root = doc_root(tmp_path, ("gtk-doc/gtk",))
    with pytest.raises(mixed_site.MissingDocs, match=r"apt-get install jdk-doc gtk-doc`"):
        mixed_site.build(tmp_path / "mix", root, TREES)
    assert not (tmp_path / "mix").exists()


def test_a_folder_holding_other_files_is_not_written_into(tmp_path):
    root = doc_root(tmp_path, ("jdk-doc/api", "gtk-doc/gtk", "gtk-doc/gdk"))
    (tmp_path / "mix").mkdir()
    (tmp_path / "mix" / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(SystemExit, match="holds other files"):
        mixed_site.build(tmp_path / "mix", root, TREES)
    assert [p.name for p in (tmp_path / "mix").iterdir()] == ["notes.txt"]
