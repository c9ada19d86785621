"""Pages that repeat other pages, told at index time by their sections' digests: an all-in-one page's hit
points at the page it copies; one item under two paths is one hit naming both addresses."""

from __future__ import annotations

from pathlib import Path

import pytest

from docs_mcp import settings
from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser
from docs_mcp.model.hits import SearchHit
from docs_mcp.search.site.copies import fold_copies

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

TOPICS = ("tides", "winds", "rains", "snows", "fogs", "frosts")


def chapter(name: str) -> str:
    return (
        f"# {name.title()}\n\n## Logging {name}\n\nEach {name} station logs its readings every six minutes "
        f"and keeps a year of them.\n\n## Calibrating {name} gauges\n\nA {name} gauge is calibrated each "
        "spring against the reference instrument of its district.\n"
    )


async def search(docs: Path, cache: Path, query: str, limit: int) -> list[SearchHit]:
    app = App(parser().parse_args(["serve", "--cache-dir", str(cache), "--no-index", "--source", str(docs)]))
    try:
        await app.indexer.run()
    finally:
        await app.fetcher.aclose()
    try:
        return app.search.search(query, limit)
    finally:
        app.index.close()


def book(tmp_path: Path) -> Path:
    """Six chapters and the book's print-everything page, which holds each chapter's sections verbatim and
    names every topic in its title and headings (its page-level match is the strongest)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in TOPICS:
        (docs / f"{name}.md").write_text(chapter(name))
    whole = "\n".join(chapter(n).replace("# ", "## ", 1).replace("\n## ", "\n### ") for n in TOPICS)
    (docs / "print.md").write_text(f"# Tides, winds and all weather: the whole book\n\n{whole}")
    return docs


async def test_a_hit_inside_an_all_in_one_page_points_at_the_chapter_it_copies(tmp_path):
    [hit] = await search(book(tmp_path), tmp_path / "c", "calibrating tides gauges spring", 1)
    assert hit.url.endswith("tides.md") and hit.section_id == "calibrating-tides-gauges"


@pytest.mark.usefixtures("lexical_only")
async def test_without_the_digests_the_all_in_one_page_takes_the_slot(tmp_path, monkeypatch):
    # Lexical alone: its page-level match is the strongest. (With the semantic blend, the closeness bonus both
    # pages share widens the six pages' spread, and the chapter's cosine can then decide on this small book.)
    # The chapter's title says a word of the query, so it is lowered less as a thin page (titled-thin): off too,
    # to see the digests' part alone.
    monkeypatch.setattr(settings, "ABLATED", frozenset({"aggregates", "titled-thin"}))
    [hit] = await search(book(tmp_path), tmp_path / "c", "calibrating tides gauges spring", 1)
    assert hit.url.endswith("print.md")  # what the issue saw: the chapter is gone


async def test_one_item_under_two_paths_is_one_hit_naming_both_addresses(tmp_path):
    docs = tmp_path / "docs"
    for module in ("tidepool/io", "tidepool/compat"):
        (docs / module).mkdir(parents=True)
        body = chapter("tides").replace("# Tides", f"# {module.replace('/', '.')}.TideReader", 1)
        (docs / module / "TideReader.md").write_text(body)
    (docs / "winds.md").write_text(chapter("winds"))
    hits = await search(docs, tmp_path / "c", "tides station logs readings", 2)
    assert len(hits) == 2 and hits[1].url.endswith("winds.md")
    [first] = [h for h in hits if h.url.endswith("TideReader.md")]
    assert len(first.also) == 1 and first.also[0].endswith("TideReader.md") and first.also[0] != first.url


def test_an_item_under_many_paths_names_three_of_them_and_a_count():
    from docs_mcp.tools.search_answer import answer

    also = tuple(f"http://127.0.0.1/mod{i}/TideReader.html" for i in range(1, 21))
    hit = SearchHit(
        "http://127.0.0.1/mod0/TideReader.html", "TideReader", "", (), "Reads tides.", "", 0.0, 1.0, also
    )
    text = answer("tide reader", [hit], "index: 21 pages", False, None, 20_000)
    assert f"also at: {', '.join(also[:3])} (+17 more)" in text and also[3] not in text


def frobnicator() -> str:
    return (
        "# Frobnicator\n\n## Frobnicating widgets\n\nThe frobnicator turns each widget twice and files a report "
        "of every turn it made.\n\n## Frobnicator settings\n\nSettings of the frobnicator live in one file "
        "beside the widgets it frobnicates.\n\n## Frobnicator errors\n\nAn error of the frobnicator names the "
        "widget it could not turn and why.\n\n## Frobnicator history\n\nThe frobnicator was first written to "
        "turn widgets for the harbour office.\n"
    )


QUICK = (
    "# Quick start\n\n## Frobnicating widgets\n\nThe frobnicator turns each widget twice and files a report "
)
QUICK += "of every turn it made.\n"


async def index_and_search(sources: list[Path], cache: Path, query: str, limit: int) -> list[SearchHit]:
    """Index these sources into one cache, then search the first one alone."""
    flags = [a for s in sources for a in ("--source", str(s))]
    app = App(parser().parse_args(["serve", "--cache-dir", str(cache), "--no-index", *flags]))
    try:
        await app.indexer.run()
    finally:
        await app.fetcher.aclose()
        app.index.close()
    return await search(sources[0], cache, query, limit)


async def test_a_copy_in_another_source_of_the_same_index_does_not_fold_a_page_away(tmp_path):
    # Source a: the real page and a quick page holding its best section. Source b, indexed into the same cache
    # but not searched: a mirror of the real page. Judged over the index file, the mirror made the real page an
    # "all-in-one copy" and its hit went to the quick page.
    a, b = tmp_path / "a", tmp_path / "b" / "mirror"
    a.mkdir(), b.mkdir(parents=True)
    (a / "frobnicator.md").write_text(frobnicator())
    (a / "quick.md").write_text(QUICK)
    (b / "frobnicator.md").write_text(frobnicator())
    alone = await index_and_search([a], tmp_path / "c1", "frobnicator widgets turns report", 2)
    shared = await index_and_search([a, b], tmp_path / "c2", "frobnicator widgets turns report", 2)
    assert [h.url for h in shared] == [h.url for h in alone]
    assert any(h.url.endswith("frobnicator.md") for h in shared)


async def test_a_page_with_a_twin_is_not_dropped_for_a_small_page_holding_one_of_its_sections(tmp_path):
    docs = tmp_path / "docs"
    (docs / "mirror").mkdir(parents=True)
    (docs / "frobnicator.md").write_text(frobnicator())
    (docs / "mirror" / "frobnicator.md").write_text(frobnicator())
    (docs / "quick.md").write_text(QUICK)
    hits = await search(docs, tmp_path / "c", "frobnicator widgets turns report", 3)
    [real] = [h for h in hits if h.url.endswith("frobnicator.md")]
    assert len(real.also) == 1 and real.also[0].endswith("frobnicator.md")


async def test_an_all_in_one_page_folds_into_the_chapter_it_holds_not_a_smaller_page_sharing_a_section(
    tmp_path,
):
    docs = book(tmp_path)
    storing = (
        "\n## Storing tides readings\n\nEach tides reading is stored for a year in the district archive.\n"
    )
    (docs / "tides.md").write_text(chapter("tides") + storing)
    whole = (
        (docs / "print.md").read_text().replace("\n## Winds", storing.replace("## ", "### ") + "\n## Winds")
    )
    (docs / "print.md").write_text(whole)
    # Smaller than the chapter, holding one of its sections beside its own: print.md does not copy this page.
    calibrating = chapter("tides").split("## Calibrating", 1)[1]
    (docs / "cheatsheet.md").write_text(
        f"# Cheat sheet\n\n## Calibrating{calibrating}\n## Glossary\n\nA gauge is an instrument; a district "
        "is the area one office keeps.\n"
    )
    app = App(
        parser().parse_args(
            ["serve", "--cache-dir", str(tmp_path / "c"), "--no-index", "--source", str(docs)]
        )
    )
    try:
        await app.indexer.run()
    finally:
        await app.fetcher.aclose()
    terms = ["calibrating", "tides", "gauges", "spring"]
    scope = app.search.scope()
    try:
        with app.index.reading() as reads:
            ids = {
                Path(r.key).name: r.id
                for r in reads.page_rows(p for p, _ in reads.page_matches(terms, scope, 20))
            }
            # The all-in-one page's hit alone, as the ranker hands it over when the query's words found only it.
            page = ids["print.md"]
            section = reads.best_section(page, terms, scope)
            folded = fold_copies(reads, [page], {page: section}, {page: 1.0}, {page: scope.prefixes[0]})
            [target] = folded.ranked
            [row] = reads.section_rows([folded.section_of[target]])
    finally:
        app.index.close()
    assert target == ids["tides.md"] and row.anchor == "calibrating-tides-gauges"


def chapter_and_a_little_more(tmp_path: Path) -> Path:
    """A chapter, and a page holding it and one section more (not twice its size: not all-in-one) whose title
    says the query's words, so its page-level match is the stronger."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tides.md").write_text(chapter("tides"))
    (docs / "winds.md").write_text(chapter("winds"))
    more = (
        "\n## Calibrating tides gauges in winter\n\nCalibrating tides gauges in winter: each spring the tides "
        "gauges are calibrated by hand when their floats freeze.\n"
    )
    body = chapter("tides").replace("# Tides", "# Tides handbook", 1)
    (docs / "handbook.md").write_text(body + more)
    return docs


@pytest.mark.usefixtures("lexical_only")
async def test_a_group_of_copies_is_addressed_by_its_most_specific_member(tmp_path):
    hits = await search(
        chapter_and_a_little_more(tmp_path), tmp_path / "c", "calibrating tides gauges spring", 2
    )
    assert hits[0].url.endswith("tides.md") and hits[0].section_id == "calibrating-tides-gauges"
    assert [a.rsplit("/", 1)[-1] for a in hits[0].also] == ["handbook.md"]


@pytest.mark.usefixtures("lexical_only")
async def test_without_the_rule_the_page_holding_more_addresses_the_group(tmp_path, monkeypatch):
    monkeypatch.setattr(settings, "ABLATED", frozenset({"specific-copy", "titled-thin"}))  # as above
    hits = await search(
        chapter_and_a_little_more(tmp_path), tmp_path / "c", "calibrating tides gauges spring", 2
    )
    assert hits[0].url.endswith("handbook.md")
    assert [a.rsplit("/", 1)[-1] for a in hits[0].also] == ["tides.md"]
