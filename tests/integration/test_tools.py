"""The five tools through the in-process MCP client, against fixtures/ served on 127.0.0.1."""

from __future__ import annotations

import re

import pytest
from conftest import FixtureHandler, call, make_tools, model_view

from docs_mcp import settings as C
from docs_mcp.transport.server import build_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def server(site):
    return build_server(make_tools(site.url))


async def text_of(server, name, **args) -> str:
    res = await call(server, name, **args)
    assert not res.is_error, model_view(res)
    assert res.structured_content is None  # markdown travels as text, never JSON-escaped
    return model_view(res)


async def error_of(server, name, **args) -> str:
    res = await call(server, name, **args)
    assert res.is_error
    return model_view(res)


# --- get_doc_toc -------------------------------------------------------------------------------
async def test_toc_lists_every_heading_with_id_level_and_size(server, site):
    out = await text_of(server, "get_doc_toc", url=site.url + "sphinx.html")
    assert out.startswith("# Working with tide series")
    assert "- Working with tide series #working-with-tide-series (" in out
    assert "\n  - Loading data #loading-data (" in out
    assert "\n      - Fixed intervals #fixed-intervals (" in out  # h4: three levels of indent
    assert "¶" not in out


async def test_toc_of_docbook_uses_container_ids(server, site):
    out = await text_of(server, "get_doc_toc", url=site.url + "docbook.html")
    for anchor in ("#TIDE-INSTALL", "#TIDE-SETUP", "#TIDE-SETUP-CONFIG", "#TIDE-SETUP-CUSTOM"):
        assert anchor in out
    assert "#note" not in out  # an admonition's title is not a section


# --- get_doc_section ---------------------------------------------------------------------------
async def test_section_includes_subsections_and_nothing_after(server, site):
    out = await text_of(server, "get_doc_section", url=site.url + "sphinx.html", section_id="resampling")
    body = out.split("\n\n", 1)[1]
    assert body.startswith("## Resampling")
    assert "#### Fixed intervals" in body and "#### Event-based sampling" in body
    assert "## Exporting results" not in body


async def test_section_accepts_heading_text_and_url_fragment(server, site):
    by_title = await text_of(
        server, "get_doc_section", url=site.url + "sphinx.html", section_id="Station metadata"
    )
    by_fragment = await text_of(
        server, "get_doc_section", url=site.url + "sphinx.html#station-metadata", section_id=""
    )
    assert "## Station metadata" in by_title
    assert by_title == by_fragment


async def test_unknown_section_lists_available_ids(server, site):
    msg = await error_of(server, "get_doc_section", url=site.url + "sphinx.html", section_id="nope")
    assert "no section 'nope'" in msg and "loading-data" in msg and "resampling" in msg


async def test_code_blocks_only_when_asked(server, site):
    url = site.url + "mkdocs.html"
    without = await text_of(server, "get_doc_content", url=url, max_length=0)
    with_code = await text_of(server, "get_doc_content", url=url, max_length=0, include_code_blocks=True)
    # Without code, only short literals (1-3 lines) are fenced; longer blocks leave a note.
    assert all(block.count("\n") <= 3 for block in re.findall(r"```[^\n]*\n(.*?)```", without, re.S))
    assert "[code: " in without
    assert "```" in with_code
    assert len(with_code) > len(without)


# --- get_doc_content and pagination ------------------------------------------------------------
@pytest.mark.slow
async def test_content_pagination_reproduces_the_page_exactly(site):
    tools = make_tools(site.url)
    server = build_server(tools)
    url = site.url + "big-reference.html"
    pieces, start, calls = [], 0, 0
    while start is not None:
        out = await text_of(server, "get_doc_content", url=url, max_length=7000, start_index=start)
        head, body = out.split("\n\n", 1)
        m = re.search(r"chars (\d+)-(\d+) of total_length=(\d+)", head)
        assert int(m.group(1)) == start
        body = re.sub(
            r"\n\n\[cut at [\d,]+ of [\d,]+ chars: call get_doc_content with start_index=\d+\]$", "", body
        )
        assert len(body) <= 7000
        pieces.append(body)
        nxt = re.search(r"next_start_index=(\d+)", head)
        start = int(nxt.group(1)) if nxt else None
        calls += 1
    _, doc = await tools.document(url)
    assert "".join(pieces) == doc.markdown()
    assert calls > 20


async def test_start_index_past_end_is_an_error(server, site):
    msg = await error_of(server, "get_doc_content", url=site.url + "seed.html", start_index=10**7)
    assert "past the end" in msg and "start again from 0" in msg


# --- search_in_doc -----------------------------------------------------------------------------
async def test_search_in_doc_returns_the_deep_subsection_not_its_parent(server, site):
    out = await text_of(
        server,
        "search_in_doc",
        url=site.url + "big-reference.html",
        query="harmonic constituents fitted by least squares phase lag",
    )
    first = out.split("\n## ", 2)[1]
    assert first.splitlines()[0].endswith("#resampling-with-tidal-harmonics")
    assert "harmonic constituents are fitted by least squares" in out


async def test_search_in_doc_gives_unused_section_slots_to_the_best_section(tmp_path):
    filler = "Gauges report water levels every few minutes and the values are stored as they arrive. " * 9
    facts = [
        f"Fact {n}: the harmonic phase lag of constituent M{n} is reported in degrees." for n in (2, 4, 6)
    ]
    body = "\n\n".join(part for fact in facts for part in (fact, filler))
    (tmp_path / "long.md").write_text(
        f"# Long page\n\n## Phases\n\n{body}\n\n## Other\n\nNothing about that here.\n", encoding="utf-8"
    )
    server = build_server(make_tools(str(tmp_path)))
    query = "harmonic phase lag constituent"
    one = await text_of(server, "search_in_doc", url="long.md", query=query, max_sections=1)
    three = await text_of(server, "search_in_doc", url="long.md", query=query, max_sections=3)
    assert "1 best section(s)" in three  # only one section matches...
    assert one.count("[offset ") == 2 and three.count("[offset ") == 3  # ...so it gets the spare slot
    assert all(f in three for f in facts) and sum(f in one for f in facts) == 2


@pytest.mark.slow
@pytest.mark.parametrize("max_length", [300, 900, 2500])
async def test_search_in_doc_content_stays_within_max_length(server, site, max_length):
    pages = {
        "big-reference.html": "harmonic constituents least squares phase lag resampling",
        "sphinx.html": "load tide series from a file",
        "api-1.html": "station datum offset parameter",
    }
    for page, query in pages.items():
        out = await text_of(server, "search_in_doc", url=site.url + page, query=query, max_length=max_length)
        used = int(re.search(r"total_content_chars=(\d+)", out).group(1))
        assert 0 < used <= max_length, (page, used)


async def test_search_in_doc_passages_drop_their_common_indentation(tmp_path):
    filler = (
        "    Gauges report water levels every few minutes and the values are stored as they arrive.\n" * 20
    )
    fact = "    The harmonic phase lag of constituent M2 is reported in degrees.\n"
    (tmp_path / "indented.md").write_text(
        f"# Page\n\n## Phases\n\n- Readings\n\n{filler}{fact}{filler}\n## Other\n\nNothing.\n",
        encoding="utf-8",
    )
    server = build_server(make_tools(str(tmp_path)))
    out = await text_of(server, "search_in_doc", url="indented.md", query="harmonic phase lag constituent")
    assert "]\nThe harmonic phase lag of constituent M2 is reported in degrees.\nGauges report" in out


async def test_search_in_doc_passage_ending_on_a_match_finishes_the_sentence(tmp_path):
    filler = "Gauges report water levels every few minutes and the values are stored as they arrive.\n"
    first = "Harmonic phase lag readings come from each gauge.\n"
    cut = "The harmonic phase lag of constituent M2 is given\n"
    rest = "in degrees relative to the Greenwich meridian, as every tide table and almanac gives it.\n"
    window = first + filler * 6 + cut
    assert len(window) <= C.PASSAGE_CHARS < len(window + rest)  # the window alone would stop at "is given"
    body = filler * 30 + window + rest + filler * 30
    (tmp_path / "phases.md").write_text(f"# Page\n\n## Phases\n\n{body}\n## Other\n\nNothing.\n", "utf-8")
    server = build_server(make_tools(str(tmp_path)))
    out = await text_of(server, "search_in_doc", url="phases.md", query="harmonic phase lag constituent")
    assert "constituent M2 is given\nin degrees relative to the Greenwich meridian," in out


async def test_search_in_doc_with_no_match_returns_the_outline(server, site):
    out = await text_of(server, "search_in_doc", url=site.url + "sphinx.html", query="zyzzyva quokka")
    assert "no section matches" in out
    assert "- Loading data #loading-data" in out


async def test_search_in_doc_works_for_japanese(server, site):
    out = await text_of(server, "search_in_doc", url=site.url + "japanese.html", query="潮位データの読み込み")
    assert "潮位データを読み込むには load 関数を使います" in out


async def test_empty_query_is_refused(server, site):
    msg = await error_of(server, "search_in_doc", url=site.url + "sphinx.html", query="  ")
    assert "query must be a non-empty string, got '  '" in msg


# --- noise and content -------------------------------------------------------------------------
async def test_seed_page_has_content_and_no_noise(server, site):
    out = await text_of(server, "get_doc_content", url=site.url + "seed.html", max_length=0)
    for noise in (
        "¶",
        "Was this page helpful",
        "Rate this page",
        "Copy\n",
        "Previous",
        "breadcrumb",
        "<script",
        "function(",
        "](",
        ".css",
    ):
        assert noise not in out, noise
    body = out.split("\n\n", 1)[1]
    lines = [line for line in body.splitlines() if line.strip()]
    assert len(lines) == len(set(lines)), "a line was duplicated"
    assert body.count("- Record which datum every file uses before merging anything.") == 1


async def test_malformed_page_keeps_text_after_stray_body_close(server, site):
    out = await text_of(server, "get_doc_content", url=site.url + "malformed.html")
    assert "## Still readable" in out
    assert "This paragraph survives broken markup." in out


# --- errors: the server keeps serving after each -----------------------------------------------
@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("missing.html", "HTTP 404"),
        ("_500.html", "HTTP 500"),
        ("_doc.pdf", "not HTML or Markdown"),
        pytest.param("_slow.html", "timed out", marks=pytest.mark.slow),  # waits out a 1 s read timeout
        ("_redirect-out.html", "not allowed"),
    ],
)
async def test_fetch_errors_are_actionable(site, path, expected):
    server = build_server(make_tools(site.url))
    msg = await error_of(server, "get_doc_content", url=site.url + path)
    assert expected in msg
    assert "Error executing tool get_doc_content: " in msg and len(msg) > 60
    ok = await text_of(server, "get_doc_toc", url=site.url + "seed.html")  # still serving
    assert "Tidal datums" in ok


async def test_redirect_inside_the_root_is_followed(server, site):
    out = await text_of(server, "get_doc_toc", url=site.url + "_redirect-in.html")
    assert out.startswith("# Working with tide series")


STUB = (
    '<html><head><title>Install (Tidepool)</title><meta http-equiv="Refresh" content="0; url={}"></head>'
    '<body><p>The node you are looking for is at <a href="{}">Install</a>.</p></body></html>'
)


async def test_a_page_that_only_refreshes_to_another_is_read_from_there(site_copy):
    # Texinfo writes one such page per node (zsh: 150 of 186 files); a browser goes on, so does the reader.
    (site_copy.directory / "Install.html").write_text(STUB.format("guide/quickstart.html#install", "x"))
    server = build_server(make_tools(site_copy.url))
    out = await text_of(server, "search_in_doc", url=site_copy.url + "Install.html", query="install")
    assert out.startswith(f"# Quickstart\n{site_copy.url}guide/quickstart.html#install · ")
    assert "## Install #install" in out


async def test_a_page_that_refreshes_to_a_unit_is_read_from_that_unit(site_copy):
    (site_copy.directory / "Install.html").write_text(STUB.format("guide/quickstart.html#install", "x"))
    server = build_server(make_tools(site_copy.url))
    top = await text_of(server, "get_doc_content", url=site_copy.url + "guide/quickstart.html")
    sent = await text_of(server, "get_doc_content", url=site_copy.url + "Install.html")
    assert "started at #install" in sent and "started at" not in top
    assert sent.startswith("# Quickstart") and sent.index("## Install") < 400


async def test_a_local_file_named_with_a_hash_is_read_whole_not_from_a_unit(tmp_path):
    (tmp_path / "a#b.md").write_text("# Notes\n\nSome text about tides.\n\n## Part b\n\nMore.\n")
    out = await text_of(build_server(make_tools(str(tmp_path))), "get_doc_content", url="a%23b.md")
    assert out.startswith("# Notes\na#b.md · chars 0-49") and "no unit" not in out and "started at" not in out


async def test_a_refresh_off_the_roots_is_refused_naming_where_it_leads(site_copy):
    (site_copy.directory / "Away.html").write_text(STUB.format("http://elsewhere.invalid/x.html", "x"))
    msg = await error_of(
        build_server(make_tools(site_copy.url)), "get_doc_toc", url=site_copy.url + "Away.html"
    )
    assert "redirects elsewhere" in msg and "elsewhere.invalid" in msg and "not allowed" in msg


async def test_too_large_page_is_refused(site):
    server = build_server(make_tools(site.url, max_body_bytes=100_000))
    msg = await error_of(server, "get_doc_toc", url=site.url + "big-reference.html")
    assert "over the 100,000-byte limit" in msg


@pytest.mark.parametrize(
    "url", ["http://elsewhere.invalid/x.html", "ftp://127.0.0.1/x", "../../etc/passwd.html"]
)
async def test_urls_outside_the_roots_are_refused_naming_them(server, site, url):
    msg = await error_of(server, "get_doc_content", url=url)
    assert "not allowed" in msg and site.url in msg


async def test_fragment_does_not_cause_a_second_fetch(site):
    tools = make_tools(site.url)
    server = build_server(tools)
    before = FixtureHandler.hits.get("/docusaurus.html", 0)
    await text_of(server, "get_doc_toc", url=site.url + "docusaurus.html#station-datums")
    await text_of(server, "get_doc_toc", url=site.url + "docusaurus.html")
    await text_of(server, "get_doc_section", url=site.url + "docusaurus.html#x", section_id="station-datums")
    assert FixtureHandler.hits["/docusaurus.html"] - before == 1


async def test_non_integer_max_length_is_a_validation_error(server, site):
    msg = await error_of(server, "get_doc_content", url=site.url + "seed.html", max_length=12.5)
    assert "max_length" in msg


async def test_local_folder_source_serves_relative_paths(tmp_path):
    from conftest import SITE

    server = build_server(make_tools(str(SITE)))
    out = await text_of(server, "get_doc_section", url="guide/configuration.html", section_id="config-file")
    assert "## Config file" in out
    msg = await error_of(server, "get_doc_content", url="../conftest.py")
    assert "not allowed" in msg
