"""Three versions of one site as one source (fixtures/versions, served on 127.0.0.1), on SQLite and on
PostgreSQL: the version asked for is searched, each hit names its version, a page missing in that version is
said with the versions holding it, the default is the newest, and one version is refreshed alone."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import FIXTURES, LocalSite, call

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser
from docs_mcp.cli.main import main
from docs_mcp.errors import PageNotFound
from docs_mcp.store.interface import Scope
from docs_mcp.transport.server import build_server

pytestmark = pytest.mark.timeout(180)
VERSIONS = "3.2,4.2,5.0"


@pytest.fixture
def quill(tmp_path: Path) -> Iterator[LocalSite]:
    """A private copy of fixtures/versions (a test edits one version's page), served on its own port."""
    root = tmp_path / "versions"
    shutil.copytree(FIXTURES / "versions", root)
    s = LocalSite(root)
    yield s
    s.stop()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_args(request, tmp_path: Path) -> list[str]:
    """Where the index lives: a SQLite file in a cache folder, or a PostgreSQL database of its own."""
    if request.param == "sqlite":
        return ["--cache-dir", str(tmp_path / "cache")]
    return ["--cache-dir", str(tmp_path / "cache"), "--index-url", request.getfixturevalue("postgres_url")]


def _index(*args: str) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["index", "--workers", "1", *args])
    assert exc.value.code == 0


class Served:
    """The tools of a server over the three versions (its index built beforehand, no crawl of its own)."""

    def __init__(self, site: LocalSite, store_args: list[str]):
        specs = ["--source", f"quill={site.url}{{version}}/", "--versions", VERSIONS]
        self.app = App(parser().parse_args(["serve", *specs, *store_args, "--no-index"]), workers=1)
        self.tools = self.app.tools

    def run(self, coro):
        return asyncio.run(coro)

    def close(self) -> None:
        asyncio.run(self.app.fetcher.aclose())
        self.app.index.close()


def test_the_version_asked_for_is_searched_each_hit_names_it_and_the_default_is_the_newest(
    quill, store_args, lexical_only
):
    _index("--source", f"quill={quill.url}{{version}}/", "--versions", VERSIONS, *store_args)
    served = Served(quill, store_args)
    try:
        old = served.run(
            served.tools.search_docs("QUILL_CACHE cache backend default", source="quill", version="3.2")
        )
        assert "memcached" in old and "redis" not in old and "filesystem" not in old
        assert f"{quill.url}3.2/settings.html" in old and "/4.2/" not in old.split("not in")[0]
        hits = [line for line in old.splitlines() if line.startswith("   http")]
        assert hits and all("source quill, version 3.2" in line for line in hits)
        # Without a version: the newest, 5.0 (compared as versions, not as text); without a source too.
        for call in (
            served.tools.search_docs("QUILL_CACHE cache backend default", source="quill"),
            served.tools.search_docs("QUILL_CACHE cache backend default"),
        ):
            newest = served.run(call)
            assert "filesystem" in newest and "memcached" not in newest and "version 5.0" in newest
        mid = served.run(served.tools.search_docs("QUILL_CACHE cache backend default", version="4.2"))
        assert "redis" in mid and "version 4.2" in mid and "version 5.0" not in mid
        # search_in_doc reads the page of the version asked for, whichever version's url it is given.
        page = served.run(
            served.tools.search_in_doc(f"{quill.url}5.0/settings.html", "cache default", version="3.2")
        )
        assert "memcached" in page and "filesystem" not in page and "/3.2/settings.html" in page
    finally:
        served.close()


def test_a_page_missing_in_the_version_asked_for_is_said_with_the_versions_that_hold_it(
    quill, store_args, lexical_only
):
    _index("--source", f"quill={quill.url}{{version}}/", "--versions", VERSIONS, *store_args)
    served = Served(quill, store_args)
    try:
        found = served.run(
            served.tools.search_docs("await async def handlers", source="quill", version="3.2")
        )
        head = found.splitlines()[0]
        assert "not in 3.2; in " in head and "/async.html" in head, head
        assert head.count("not in 3.2") == 1  # 4.2 and 5.0 both hold it: said once
        with pytest.raises(PageNotFound) as exc:
            served.run(served.tools.search_in_doc(f"{quill.url}5.0/async.html", "await", version="3.2"))
        said = str(exc.value)
        assert f"{quill.url}3.2/async.html is not in 3.2" in said
        assert f"in 4.2: {quill.url}4.2/async.html" in said and f"in 5.0: {quill.url}5.0/async.html" in said
        with pytest.raises(PageNotFound, match=r"not in 5\.0; in 3\.2: .*/3\.2/legacy\.html"):
            served.run(served.tools.search_in_doc(f"{quill.url}3.2/legacy.html", "scroll", version="5.0"))
        # The newest version holds it: nothing said.
        newest = served.run(served.tools.search_docs("await async def handlers", source="quill"))
        assert "not in" not in newest and "/5.0/async.html" in newest
        # Through MCP, as an agent calls it: the argument reaches the tool, the refusal the model.
        server = build_server(served.tools)
        refused = served.run(
            call(server, "search_in_doc", url=f"{quill.url}4.2/async.html", query="x", version="3.2")
        )
        assert refused.is_error and "not in 3.2; in 4.2:" in refused.content[0].text
    finally:
        served.close()


def test_one_version_is_refreshed_alone_and_sources_names_every_version_without_its_configuration(
    quill, store_args, lexical_only, capsys
):
    spec = f"quill={quill.url}{{version}}/"
    _index("--source", spec, "--versions", VERSIONS, *store_args)
    page = quill.directory / "3.2" / "settings.html"
    page.write_text(
        page.read_text().replace("the memcached backend on port 11211", "the sqlite backend in quill.db")
    )
    served = Served(quill, store_args)
    before = {s.name: served.app.index.pages(Scope.of([s])) for s in served.app.sources.sources}
    served.close()
    _index("--source", spec, "--versions", "3.2", "--refresh", *store_args)
    served = Served(quill, store_args)
    try:
        after = {s.name: served.app.index.pages(Scope.of([s])) for s in served.app.sources.sources}
        assert after["quill@4.2"] == before["quill@4.2"] and after["quill@5.0"] == before["quill@5.0"]
        assert min(p.fetched_at for p in after["quill@3.2"]) > max(p.fetched_at for p in before["quill@3.2"])
        text = served.run(
            served.tools.search_docs("QUILL_CACHE cache backend default", source="quill", version="3.2")
        )
        assert "sqlite backend" in text and "memcached" not in text
    finally:
        served.close()
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["sources", *store_args])  # no --source: the index itself names each root's version
    listed = capsys.readouterr().out
    assert all(f"quill@{v}" in listed for v in VERSIONS.split(",")), listed
    with pytest.raises(SystemExit):
        main(["remove", "quill@3.2", *store_args])  # one version removed, the others kept
    assert "removed quill@3.2" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["sources", *store_args])
    listed = capsys.readouterr().out
    assert "quill@3.2" not in listed and "quill@4.2" in listed and "quill@5.0" in listed, listed
