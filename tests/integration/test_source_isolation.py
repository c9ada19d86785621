"""Each source ranks by its own statistics: indexing another source with words in common into the same index,
then removing it (`docslice remove`), leaves the first source's hits, sections and scores as they were, on
both engines (SQLite computes the scope's BM25 where the scope is not the whole file; PostgreSQL counts the
scope's rows). Real pages served on 127.0.0.1."""

from __future__ import annotations

import pytest
from conftest import FIXTURES, LocalSite

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser
from docs_mcp.cli.main import main

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

#: Questions about the fixture site; most of their words are on the real pages too (Python, Django, PostgreSQL).
QUERIES = [
    "configuration file",
    "how does tidepool.load handle time zones",
    "tide table path",
    "install",
    "read records and validate their encoding",
    "create a table with a default value",
]


@pytest.fixture(scope="module")
def real() -> LocalSite:
    served = LocalSite(FIXTURES / "real")
    yield served
    served.stop()


def _cli(*argv: str) -> None:
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    assert exc.value.code == 0, argv


def _site_hits(where: list[str], site: str, other: str) -> list[list[tuple[str, str | None, float]]]:
    """The site's top-10 for each question, from a server configured with both sources, asked for the site's."""
    args = ["serve", "--source", site, "--source", other, "--no-index", *where]
    app = App(parser().parse_args(args), workers=1)
    try:
        return [[(h.url, h.section_id, h.score) for h in app.search.search(q, 10, "site")] for q in QUERIES]
    finally:
        app.index.close()


def _isolated(where: list[str], site: LocalSite, real: LocalSite) -> None:
    mine, other = f"site={site.url}", f"real={real.url}"
    _cli("index", "--source", mine, "--workers", "1", *where)
    alone = _site_hits(where, mine, other)
    assert all(alone) and len({h[0] for hits in alone for h in hits}) >= 8
    _cli("index", "--source", other, "--workers", "1", *where)
    assert _site_hits(where, mine, other) == alone
    _cli("remove", "localhost-" + real.url.rsplit(":", 1)[1].strip("/"), *where)  # as the index names it
    assert _site_hits(where, mine, other) == alone


def test_another_source_indexed_then_removed_leaves_a_sources_hits_unchanged_on_sqlite(site, real, tmp_path):
    _isolated(["--cache-dir", str(tmp_path)], site, real)


@pytest.mark.postgres
def test_another_source_indexed_then_removed_leaves_a_sources_hits_unchanged_on_postgres(
    site, real, postgres_url
):
    _isolated(["--index-url", postgres_url], site, real)
