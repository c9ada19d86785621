"""The ~30,000-page mixed site of issue 42's indexing bounds, made again the same way each time: a folder of
symlinks to ten documentation trees of Debian's `*-doc` packages under /usr/share/doc, and an `index.html`
linking each tree's root page (its crawl starts there). Index it with `index_scale.py --docs DEST` or
`index_cost.py --docs DEST`.

    python benchmarks/scale/mixed_site.py /tmp/mix30k          # 30,506 HTML files with every package
"""

from __future__ import annotations

import argparse
import html
import os
from dataclasses import dataclass
from pathlib import Path

DOC_ROOT = Path("/usr/share/doc")


@dataclass(frozen=True)
class Tree:
    """One documentation tree of the mix: its name in the mix, the folder linked (under the doc root), the
    Debian package holding it, and its root pages (relative to that folder); `optional` roots may be missing
    (GTK's links to GLib's docs dangle without libglib2.0-doc)."""

    name: str
    folder: str
    package: str
    roots: tuple[str, ...] = ("index.html",)
    optional: tuple[str, ...] = ()


TREES = (
    Tree("jdk", "openjdk-17-doc/api", "openjdk-17-doc"),
    Tree(
        "gtk",
        "libgtk-4-doc",
        "libgtk-4-doc",
        tuple(f"{lib}/index.html" for lib in ("gtk4", "gdk4", "gdk4-wayland", "gdk4-x11", "gsk4")),
        ("glib/index.html", "gobject/index.html"),
    ),
    Tree("ghc", "ghc-doc/html", "ghc-doc"),
    Tree("scala", "scala-doc", "scala-doc", ("html/index.html", "tools/index.html")),
    Tree("ruby", "ruby3.1-doc/html", "ruby3.1-doc"),
    Tree("postgresql", "postgresql-doc-15/html", "postgresql-doc-15"),
    Tree("erlang", "erlang-doc", "erlang-doc", ("doc/index.html", "lib/index.html")),
    Tree("django", "python-django-doc/html", "python-django-doc"),
    Tree("python", "python3.11-doc/html", "python3.11-doc"),
    Tree("sdl", "libsdl2-doc/html", "libsdl2-doc"),
)


class MissingDocs(SystemExit):
    """A tree of the mix is not installed: the message names the packages to install."""


def root_links(doc_root: Path, trees: tuple[Tree, ...] = TREES) -> list[str]:
    """Each tree's root pages as the mix's index links them (`name/root`); MissingDocs names every package
    whose tree or a required root is missing."""
    missing, links = [], []
    for tree in trees:
        base = doc_root / tree.folder
        if not all((base / root).is_file() for root in tree.roots):
            missing.append(tree)
            continue
        present = [root for root in tree.optional if (base / root).is_file()]
        links += [f"{tree.name}/{root}" for root in (*tree.roots, *present)]
    if missing:
        where = ", ".join(f"{doc_root / t.folder}" for t in missing)
        raise MissingDocs(
            f"the mixed site needs {where}: install them with "
            f"`apt-get install {' '.join(t.package for t in missing)}`"
        )
    return links


def build(dest: Path, doc_root: Path = DOC_ROOT, trees: tuple[Tree, ...] = TREES) -> list[str]:
    """The mix in `dest` (new, or made by this script before: its links are replaced); its index's links."""
    links = root_links(doc_root, trees)
    if dest.exists() and any(p.name not in {t.name for t in trees} | {"index.html"} for p in dest.iterdir()):
        raise SystemExit(f"{dest} holds other files: give a new or empty folder")
    dest.mkdir(parents=True, exist_ok=True)
    for tree in trees:
        link = dest / tree.name
        link.unlink(missing_ok=True)
        link.symlink_to(doc_root / tree.folder, target_is_directory=True)
    items = "\n".join(f'<li><a href="{html.escape(link)}">{html.escape(link)}</a></li>' for link in links)
    page = f"<!DOCTYPE html>\n<html><head><title>Mixed documentation</title></head>\n<body><h1>Mixed documentation</h1>\n<ul>\n{items}\n</ul></body></html>\n"
    (dest / "index.html").write_text(page, encoding="utf-8")
    return links


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dest", type=Path, help="the folder to make (new or empty, or a mix made before)")
    ap.add_argument("--doc-root", type=Path, default=DOC_ROOT, help="where the packages' docs are")
    ns = ap.parse_args()
    links = build(ns.dest, ns.doc_root)
    files = sum(n.endswith(".html") for _, _, names in os.walk(ns.dest, followlinks=True) for n in names)
    print(f"{ns.dest}: {len(TREES)} trees, index.html linking {len(links)} roots, {files} HTML files")


if __name__ == "__main__":
    main()
