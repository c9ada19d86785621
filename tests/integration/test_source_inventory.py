"""The sources an index holds, listed and removed one at a time; a source whose build found nothing leaves
no trace in the index (this process still says why)."""

from __future__ import annotations

import re
import socket

import pytest
from conftest import SITE

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parse
from docs_mcp.cli.main import main
from docs_mcp.model.progress import BUILD_META

pytestmark = [pytest.mark.timeout(120), pytest.mark.anyio]


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def test_sources_lists_each_source_of_the_index_and_remove_takes_one_away(site, tmp_path, capsys):
    cache = ["--cache-dir", str(tmp_path)]
    for source in (str(SITE), site.url):
        assert run(["index", "--source", source, "--workers", "1", *cache], capsys)[0] == 0
    code, out, _ = run(["sources", *cache], capsys)  # no --source: the index says what it holds
    assert code == 0
    head, *rows, where = out.splitlines()
    assert head.split() == ["name", "pages", "size", "last", "refresh", "health", "root"]
    port = site.url.rsplit(":", 1)[1].strip("/")
    assert re.match(rf"site +17 +0\.\d MB +20\d\d-\d\d-\d\d \d\d:\d\d UTC \(just now\) +ok +{SITE}$", rows[0])
    assert re.match(rf"localhost-{port} +18 +0\.\d MB .* ok +{re.escape(site.url)}$", rows[1])
    assert where == f"index: {tmp_path / 'index.sqlite'} (--cache-dir or DOCSLICE_CACHE_DIR moves it)"
    code, out, _ = run(["remove", "site", *cache], capsys)
    assert (code, out) == (0, f"removed site ({SITE}): 17 pages\n")
    code, out, _ = run(["sources", *cache], capsys)
    assert [line.split()[0] for line in out.splitlines()[1:-1]] == [f"localhost-{port}"]
    code, _, err = run(["remove", "site", *cache], capsys)
    assert code == 2 and f"no source 'site' in the index; it holds: localhost-{port}" in err


async def test_a_source_whose_build_found_nothing_is_not_kept_but_still_said(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    app = App(
        parse(["serve", "--source", f"dead={url}", "--cache-dir", str(tmp_path), "--no-index"]), workers=1
    )
    [report] = await app.indexer.run()
    assert report.pages == 0 and not report.reached
    assert app.index.metas(BUILD_META) == []  # no name left behind in the shared index
    assert "source dead unreachable: could not reach" in await app.tools.search_docs("anything")
    await app.tools.aclose()
