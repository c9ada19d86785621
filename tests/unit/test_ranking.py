"""ranking: BM25 over each section's own text, heading boost, section choice, passages."""

from __future__ import annotations

import asyncio
import functools
import itertools
import math

import lxml.html
import pytest
from conftest import SITE, make_tools

from docs_mcp.convert.render import render_section
from docs_mcp.convert.sections import split_html
from docs_mcp.model.document import Document, Section
from docs_mcp.search.in_page.passages import passages
from docs_mcp.search.in_page.ranking import BM25, PageIndex, ScoredSection, page_index, select_sections
from docs_mcp.settings import SECONDARY_SCORE_RATIO


@functools.cache
def page(name: str) -> Document:
    return asyncio.run(make_tools(str(SITE)).document(name))[1]


def doc(*rows: tuple[str, str, int, str | None, str]) -> Document:
    """A page built by hand from (id, title, level, parent, text) rows."""
    sections = tuple(Section(i, t, lv, p, body_md=x, text=x) for i, t, lv, p, x in rows)
    return Document("p.html", "src", rows[0][1], sections, render=render_section)


def html_doc(html: str) -> Document:
    """A page built from an HTML fragment, split into sections as a fetched page is."""
    sections = split_html(lxml.html.fragment_fromstring(html, create_parent="div"))
    return Document("p.html", "src", "Page", tuple(sections), render=render_section)


def ids(d: Document, ranked) -> list[str]:
    return [d.sections[s.index].id for s in ranked]


STORE = doc(
    ("store", "Store", 1, None, "This page describes how the store keeps data on disk and in memory."),
    ("storage", "Storage", 2, "store", "Files are written to disk in segments, one per hour of data."),
    (
        "compaction",
        "Compaction",
        3,
        "storage",
        "Compaction merges segment files and reclaims tombstone space.",
    ),
    ("retention", "Retention", 2, "store", "Old records are deleted once the configured period has passed."),
    (
        "backups",
        "Backups",
        2,
        "store",
        "Backups copy every file to object storage each night; the copies follow the same retention as the live "
        "data and are verified after upload by comparing checksums of each file against the manifest written at "
        "the start of the run.",
    ),
    (
        "metrics",
        "Metrics",
        2,
        "store",
        "Counters for reads, writes and cache hits are exported every minute.",
    ),
)


# --- rank ----------------------------------------------------------------------------------------
def test_section_excludes_child_text_from_score():
    ranked = PageIndex(STORE).rank("compaction tombstone segment")
    assert ids(STORE, ranked)[0] == "compaction"
    scores = {STORE.sections[s.index].id: s.score for s in ranked}
    # The parent's own "segments" counts, its child's text does not.
    assert scores["storage"] < scores["compaction"] / 2
    assert "store" not in scores


def test_term_in_a_heading_outranks_a_single_mention_in_a_body():
    assert ids(STORE, PageIndex(STORE).rank("retention"))[:2] == ["retention", "backups"]


def test_no_match_ranks_nothing():
    assert PageIndex(STORE).rank("zyzzyva quokka") == []


def test_fixture_query_ranks_the_section_that_explains_it():
    d = page("sphinx.html")
    assert ids(d, page_index(d).rank("fixed intervals anchored at midnight"))[0] == "fixed-intervals"


def test_cjk_query_ranks_the_japanese_section():
    d = page("japanese.html")
    assert ids(d, page_index(d).rank("潮位データの読み込み"))[0] == "loading-tide-data"


def test_page_index_is_memoized_with_the_document():
    d = page("seed.html")
    assert page_index(d) is page_index(d)


# --- select_sections -----------------------------------------------------------------------------
def test_select_keeps_a_section_and_its_ancestor_in_score_order():
    d = page("sphinx.html")
    at = {s.id: i for i, s in enumerate(d.sections)}
    ranked = [
        ScoredSection(at["resampling"], 10.0),
        ScoredSection(at["choosing-a-frequency"], 9.0),
        ScoredSection(at["loading-data"], 8.0),
    ]
    assert ids(d, select_sections(d, ranked, 10)) == ["resampling", "choosing-a-frequency", "loading-data"]


def test_select_respects_the_limit():
    d = page("sphinx.html")
    ranked = [ScoredSection(i, 10.0 - i) for i in (1, 2, 7, 8)]
    assert ids(d, select_sections(d, ranked, 2)) == ["loading-data", "station-metadata"]


def test_select_drops_sections_below_the_secondary_ratio_of_the_best():
    d = page("sphinx.html")
    best = 10.0
    ranked = [
        ScoredSection(1, best),
        ScoredSection(2, best * SECONDARY_SCORE_RATIO),
        ScoredSection(7, best * SECONDARY_SCORE_RATIO - 0.01),
    ]
    assert ids(d, select_sections(d, ranked, 10)) == ["loading-data", "station-metadata"]


def test_a_heading_without_text_of_its_own_is_not_ranked():
    d = doc(
        ("timeouts", "Timeout settings", 2, None, ""),
        ("connect", "Connect", 3, "timeouts", "The connect timeout applies to opening a socket."),
    )
    assert ids(d, PageIndex(d).rank("timeout settings")) == ["connect"]


# --- BM25 -----------------------------------------------------------------------------------------
def test_bm25_scores_follow_okapi_with_lucene_idf():
    bm25 = BM25([["tide", "gauge", "tide"], ["gauge"], ["wave", "height", "gauge", "sensor"]])
    idf = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    average = 8 / 3
    expected = idf * (2 * 2.5 / (2 + 1.5 * (1 - 0.75 + 0.75 * 3 / average)))
    assert bm25.scores(["tide"]) == [expected, 0.0, 0.0]
    assert bm25.scores(["tide", "nowhere"]) == [expected, 0.0, 0.0]


def test_bm25_a_term_in_every_section_still_counts_a_little():
    bm25 = BM25([["gauge", "tide"], ["gauge"]])
    assert 0 < bm25.idf["gauge"] < bm25.idf["tide"]
    assert all(s > 0 for s in bm25.scores(["gauge"]))


# --- passages ------------------------------------------------------------------------------------
FILLER = "Gauges report water levels every few minutes and the values are stored as they arrive. " * 2
DENSE = "Harmonic constituents are fitted by least squares to the record, then the phase lag is reported."
DECOY = "Harmonic analysis, harmonic series, harmonic everything: this paragraph only repeats one word."


def paragraphs(*blocks: str) -> str:
    return "\n\n".join(blocks)


def index_for(text: str) -> PageIndex:
    return PageIndex(doc(("p", "Page", 1, None, text)))


def test_passage_offsets_index_into_the_text_exactly():
    d = page("sphinx.html")
    idx = page_index(d)
    for i in range(len(d.sections)):
        text = d.section_markdown(i, include_code=True)
        for p in passages(idx, text, "resample series station", 3, size=300):
            assert text[p.offset : p.offset + len(p.text)] == p.text


def test_best_passage_contains_the_densest_match():
    text = paragraphs(DECOY, *[FILLER] * 4, DENSE, *[FILLER] * 4)
    (best,) = passages(index_for(text), text, "harmonic constituents least squares phase lag", 1, size=300)
    assert DENSE in best.text
    assert DECOY not in best.text
    assert text[best.offset : best.offset + len(best.text)] == best.text


def test_passages_do_not_overlap():
    text = paragraphs(
        DENSE, *[FILLER] * 3, DECOY, *[FILLER] * 3, "Least squares fits need long records.", FILLER
    )
    found = passages(index_for(text), text, "harmonic least squares", 3, size=250)
    assert len(found) >= 2
    spans = [(p.offset, p.offset + len(p.text)) for p in found]
    assert spans == sorted(spans)
    assert all(end <= nxt for (_, end), (nxt, _) in itertools.pairwise(spans))


def test_passages_stay_within_their_budget():
    text = paragraphs(*[FILLER] * 3, DENSE, *[FILLER] * 3, DECOY)
    for size in (120, 250, 700):
        found = passages(index_for(text), text, "harmonic least squares", 2, size=size)
        assert found
        # Adjacent windows are merged into one passage, so the budget holds for all of them together.
        assert sum(len(p.text) for p in found) <= 2 * (size + 2), size


def test_passages_a_few_lines_apart_come_as_one_with_the_lines_between():
    bridge = "Unrelated remark about the gauge housing and its paint."
    text = paragraphs(
        FILLER, DENSE, bridge, "Another aside on cables.", "Least squares fits report the phase lag.", FILLER
    )
    size = len(DENSE) + 2
    found = passages(index_for(text), text, "harmonic least squares phase lag", 2, size=size, budget=4 * size)
    assert len(found) == 1
    assert DENSE in found[0].text and bridge in found[0].text and "report the phase lag" in found[0].text


def test_passages_are_not_joined_past_the_budget():
    text = paragraphs(
        FILLER,
        DENSE,
        "Unrelated remark about the gauge housing and its paint.",
        "Another aside on cables.",
        "Least squares fits report the phase lag.",
        FILLER,
    )
    size = len(DENSE) + 2
    found = passages(index_for(text), text, "harmonic least squares phase lag", 2, size=size, budget=2 * size)
    assert len(found) == 2
    assert sum(len(p.text) for p in found) <= 2 * size


def test_passage_opens_on_the_definition_the_query_names():
    decoy = "Each statement may set a timeout: the statement timeout and the lock timeout interact."
    definition = "`statement_timeout` (`integer`)\n:   Abort any statement that takes longer than this."
    other = "`lock_timeout` (`integer`)\n:   Abort any statement that waits longer than this for a lock."
    text = paragraphs(FILLER, decoy, FILLER, definition, FILLER, other, FILLER)
    (p,) = passages(index_for(text), text, "statement timeout", 1, size=len(definition) + 2)
    assert p.text.startswith("`statement_timeout` (`integer`)")


def test_passage_on_a_definition_does_not_take_the_previous_definitions_last_line():
    before = "`lock_timeout` (`integer`)\n:   Abort any statement that waits for a lock."
    definition = "`statement_timeout` (`integer`)\n:   Abort any statement that takes longer than this."
    text = paragraphs(FILLER, before, definition, FILLER)
    (p,) = passages(index_for(text), text, "statement timeout", 1, size=700)
    assert p.text.startswith("`statement_timeout` (`integer`)")


def test_a_definition_sharing_one_word_with_the_query_is_not_favoured():
    decoy = "An archive written by zipfile can be opened later."
    definition = "*class* zipfile.Archive(*file*)\n:   Open a ZIP file from a path."
    text = paragraphs(FILLER, decoy, FILLER, definition, FILLER)
    (p,) = passages(index_for(text), text, "zipfile archive", 1, size=len(definition) + 2)
    assert p.text.startswith("An archive written by zipfile")


def test_passage_starts_with_the_lead_in_line_before_the_match():
    text = paragraphs(
        FILLER,
        "tidepool.fit(series, names)",
        "Fits harmonic constituents by least squares and reports the phase lag.",
        FILLER,
    )
    (p,) = passages(index_for(text), text, "harmonic constituents least squares", 1)
    assert p.text.startswith("tidepool.fit(series, names)\n\nFits harmonic constituents")


def test_passage_prefers_query_words_in_one_sentence_over_the_same_words_spread_out():
    # An option list that names each query word once, on lines far apart, comes first on the page.
    pad = "Nothing to see on this line, which only pads the list out to a realistic length."
    spread = "\n".join(
        [
            f"- `persistent` keeps the process alive while a file stays open. {pad}",
            pad,
            f"- `recursive` reports changes below every subdirectory. {pad}",
            pad,
            f"- `listener` is called on each watch event. {pad}",
        ]
    )
    sentence = "Watch for changes on a path, which may name a file or a directory."
    text = paragraphs(spread, *[FILLER] * 3, sentence, *[FILLER] * 3)
    (p,) = passages(index_for(text), text, "watch a file for changes", 1, size=len(spread) + 2)
    assert sentence in p.text
    assert "`persistent`" not in p.text


def test_passage_ending_on_a_match_finishes_its_sentence_within_reach():
    definition = (
        "`max_connections` (`integer`)\n"
        ":   Determines the maximum number of concurrent\n"
        "    connections to the database server. The default is typically 100.\n"
        "    Later sentences are not needed."
    )
    text = paragraphs(FILLER, definition, FILLER)
    size = definition.index("\n    connections") + 1  # the window ends mid-sentence, on the line that matches
    query = "maximum number of concurrent connections"
    (cut,) = passages(index_for(text), text, query, 1, size=size)
    (finished,) = passages(index_for(text), text, query, 1, size=size, reach=150)
    assert cut.text.endswith("maximum number of concurrent")
    assert finished.text.endswith("connections to the database server.")
    (short,) = passages(index_for(text), text, query, 1, size=size, reach=10)
    assert short.text == cut.text  # the sentence ends beyond reach: the window stays as it was


def test_best_passage_runs_on_to_the_lines_after_its_match_within_run_on():
    item = (
        "9. **Maximum Number Of Host Parameters In A Single Statement**\n\n"
        "   A host parameter is a place-holder in a statement.\n"
        "   Each one is assigned a number, starting at one.\n"
        "   The largest number defaults to 999, or 32766 in later versions."
    )
    text = paragraphs(FILLER, item, FILLER)
    query = "maximum host parameters single statement"
    size = item.index("\n   Each") + 1  # the window holds the heading and the first line only
    (plain,) = passages(index_for(text), text, query, 1, size=size)
    (on,) = passages(index_for(text), text, query, 1, size=size, run_on=200)
    assert "32766" not in plain.text
    assert on.text.startswith(plain.text) and on.text.endswith("or 32766 in later versions.")
    assert len(on.text) <= len(plain.text) + 200
    (few,) = passages(index_for(text), text, query, 1, size=size, run_on=20)
    assert few.text == plain.text  # no whole line fits in 20 chars: the window stays as it was


def test_only_the_best_passage_runs_on():
    text = paragraphs(DENSE, *[FILLER] * 3, "Least squares fits need long records.", *[FILLER] * 3)
    query = "harmonic constituents least squares phase lag"
    plain = passages(index_for(text), text, query, 2, size=120, budget=1_000)
    on = passages(index_for(text), text, query, 2, size=120, budget=1_000, run_on=300)
    assert len(plain) == len(on) == 2
    assert len(on[0].text) > len(plain[0].text)  # DENSE is the best window: it runs on into the filler
    assert on[1] == plain[1]


def test_a_line_longer_than_the_window_scores_its_densest_span_too():
    pad = "Nothing on this line matters to the question at all, it only pads the paragraph out. "
    answer = pad * 2 + "To watch a file for changes, call watch with the path of the file. " + pad * 2
    listing = (
        "- watch mode\n- file changes are buffered\n" + "- unrelated item\n" * 6 + "- see the changes log"
    )
    text = paragraphs(FILLER, listing, FILLER, FILLER, answer, FILLER)
    assert len(answer) > 300
    (p,) = passages(index_for(text), text, "watch a file for changes", 1, size=300)
    assert "To watch a file for changes" in p.text


def test_windows_separated_only_by_a_blank_line_are_not_joined_past_the_budget():
    first = "Harmonic constituents are fitted to the record by least squares."
    second = "Least squares also gives the harmonic phase lag of each constituent."
    text = paragraphs(FILLER, first, second, FILLER)
    size = max(len(first), len(second)) + 1
    budget = len(first) + len(second) + 1  # both windows fit, the blank line between them does not
    found = passages(
        index_for(text), text, "harmonic constituents least squares", 2, size=size, budget=budget
    )
    assert [p.text for p in found] == [first, second]


def test_block_longer_than_the_size_is_cut_at_a_boundary():
    long_block = " ".join(f"Sentence {n} explains tidal harmonics in more detail." for n in range(60))
    text = paragraphs("Intro.", long_block, "Outro.")
    (p,) = passages(index_for(text), text, "tidal harmonics", 1, size=300)
    assert text[p.offset : p.offset + len(p.text)] == p.text
    assert p.text.strip().startswith("Sentence 0 explains")
    assert 200 < len(p.text) <= 300
    assert p.text.endswith("detail.")  # at a sentence end, not mid-word


def test_section_defining_a_queried_name_outranks_one_that_mentions_it_as_often():
    html = (
        "<h2 id='guide'>Guide</h2><p>See tidepool.resample for details; resample keeps gaps.</p>"
        "<h2 id='api'>API</h2><dl><dt>tidepool.resample(series, rule)</dt><dd><p>Regrid; keeps gaps.</p></dd></dl>"
    )
    d = html_doc(html)
    assert ids(d, PageIndex(d).rank("tidepool.resample gaps"))[0] == "api"


def test_code_matches_nothing_but_keeps_the_section_long():
    code = "<pre data-lang='python'>" + "resample(x)\n" * 60 + "</pre>"
    html = (
        f"<h2 id='examples'>Examples</h2><p>Resample a series.</p>{code}"
        "<h2 id='howto'>How to</h2><p>To resample a series, pick a rule; resample keeps gaps and never invents data "
        "points beyond the record, so the result is as long as the input.</p>"
    )
    d = html_doc(html)
    assert "resample(x)" not in d.sections[0].text and d.sections[0].code_words == 60
    assert ids(d, PageIndex(d).rank("resample"))[0] == "howto"


SHELL = doc(
    ("shell", "Shell", 1, None, "The shell reads commands and runs them."),
    (
        "redirect",
        "Redirections",
        2,
        "shell",
        "Before a command runs, 2>&1 sends its errors where its output goes.",
    ),
    ("terminal", "Terminal", 2, "shell", "Errors of a command appear on the terminal."),
    ("jobs", "Jobs", 2, "shell", "A job is a pipeline started in the background."),
    ("history", "History", 2, "shell", "The history list keeps the commands typed."),
    ("prompt", "Prompt", 2, "shell", "The prompt is printed before each command is read."),
)


def test_a_literal_the_tokenizer_drops_ranks_the_section_holding_it_as_written(monkeypatch):
    from docs_mcp import settings

    query = "why do errors show with 2>&1"
    assert ids(SHELL, PageIndex(SHELL).rank(query, meaning=False))[0] == "redirect"
    monkeypatch.setattr(settings, "ABLATED", frozenset({"literals"}))
    assert ids(SHELL, PageIndex(SHELL).rank(query, meaning=False))[0] == "terminal"  # the words alone


def test_a_literal_alone_finds_the_section_whose_code_holds_it():
    html = (
        "<h2 id='files'>Files</h2><p>Write errors and output to files with redirections.</p>"
        "<h2 id='both'>Both</h2><pre>cmd &gt;log 2&gt;&amp;1</pre>"
    )
    d = html_doc(html)
    assert not d.sections[1].text  # a section of code alone: no text, no words
    assert ids(d, PageIndex(d).rank("2>&1", meaning=False)) == ["both"]


def test_a_literal_of_markdown_markup_alone_is_not_matched_in_markdown():
    page = doc(
        ("note", "Note", 2, None, "**Note** the gauges are read hourly, **always**."),
        ("power", "Power", 2, None, "x ** y raises x to the power y."),
    )
    assert ids(page, PageIndex(page).rank("** power", meaning=False)) == ["power"]  # by its word alone
    assert PageIndex(page).rank("**", meaning=False) == []  # bold markers are not the operator


def test_the_passage_shown_holds_the_literal_asked_about(monkeypatch):
    from docs_mcp import settings

    literal_line = "Use ~+ for the current directory and ~- for the previous one."
    stack_line = "The directory stack holds directory names; dirs lists the directory stack."
    text = paragraphs(*[FILLER] * 3, stack_line, *[FILLER] * 3, literal_line, *[FILLER] * 3)
    query = "what directory do ~+ and ~- name"
    (best,) = passages(index_for(text), text, query, 1, size=200)
    assert literal_line in best.text
    monkeypatch.setattr(settings, "ABLATED", frozenset({"literals"}))
    (best,) = passages(index_for(text), text, query, 1, size=200)
    assert stack_line in best.text  # the words alone


GAUGE = doc(
    ("gauge", "Tide gauge", 1, None, "A tide gauge records the water level."),
    (
        "install",
        "Installing the gauge",
        2,
        "gauge",
        "Mount the gauge on a pier. The gauge needs power and a "
        "network cable to send its readings to the station.",
    ),
    (
        "display",
        "Reading the display",
        2,
        "gauge",
        "The display shows the latest readings of the gauge in "
        "metres above the datum, refreshed every six minutes.",
    ),
    (
        "calibration",
        "Calibration",
        2,
        "gauge",
        "Over months the pressure sensor's zero point wanders, so recorded water heights become inaccurate.",
    ),
)


def test_the_section_nearest_the_query_in_meaning_moves_up_taking_the_scores_in_turn(monkeypatch):
    from docs_mcp import settings
    from docs_mcp.search.semantic.signal import page_cosines

    query = "wrong gauge water heights"
    blended = PageIndex(GAUGE).rank(query)
    nearest = GAUGE.sections[int(page_cosines(GAUGE, query).argmax())].id
    monkeypatch.setattr(settings, "SEMANTIC_MODEL", "off")  # no model: BM25 alone
    lexical = PageIndex(GAUGE).rank(query)
    # BM25 puts the calibration first, by a hair; the overview, nearest the query by its vector, goes ahead.
    assert ids(GAUGE, lexical)[:2] == ["calibration", "gauge"]
    assert nearest == "gauge"
    assert ids(GAUGE, blended)[:2] == ["gauge", "calibration"]
    # Each place keeps its BM25 score, so as many sections pass select_sections' floor as without the model.
    assert [s.score for s in blended] == [s.score for s in lexical]


@pytest.mark.parametrize("query", ["option value default", "gauge", "returns"])
def test_ranking_by_meaning_lists_each_section_once_and_keeps_every_word_match(query):
    big = page("big-reference.html")  # 138 sections: BM25 ranks 99-116 of them, past the 30 re-ordered
    blended = PageIndex(big).rank(query)
    lexical = PageIndex(big).rank(query, meaning=False)
    assert len(lexical) > 30
    assert len(blended) == len({s.index for s in blended})
    assert {s.index for s in lexical} <= {s.index for s in blended}
    assert all(s.score > 0 for s in blended)


DRIFT = (
    "Each gauge has a serial number and a height printed on its case, next to the time of its last service.",
    "As the sensor ages, the heights the gauge records drift and become wrong.",
    "A gauge can be mounted on a pier or on a wall.",
    "The display shows the latest reading of the gauge, refreshed every six minutes.",
)


def drift_windows(scores: list[float]) -> tuple[str, object, list]:
    """DRIFT's paragraphs as one section's lines and candidate windows (one a line), best word score first."""
    from docs_mcp.search.in_page.passages import _Lines, _Window

    text = "\n\n".join(DRIFT)
    spans = [(text.index(t), text.index(t) + len(t)) for t in DRIFT]
    windows = [_Window(score, i, *spans[i], True, False) for i, score in enumerate(scores)]
    return text, _Lines(spans, [], [], []), windows


def test_a_passage_worded_like_the_question_moves_up_taking_the_word_scores_in_turn(monkeypatch):
    from docs_mcp import settings
    from docs_mcp.search.in_page.passages import _by_meaning

    query = "why are my gauge's heights wrong after some time"
    text, lines, windows = drift_windows([3.0, 2.9, 1.2, 1.1])
    index = PageIndex(doc(("gauge", "Gauge", 1, None, text)))
    blended = _by_meaning(index, text, query, lines, windows)
    # The serial number scores by a hair more; the drift answers the question.
    assert [w.line for w in blended] == [1, 0, 3, 2]
    # Each place keeps its word score: as many windows stay above zero as without the model.
    assert [w.score for w in blended] == [3.0, 2.9, 1.2, 1.1]
    # The page keeps its lines' sums for its next query, and gives the same order from them.
    assert set(index.piece_sums) == set(DRIFT)
    assert _by_meaning(index, text, query, lines, windows) == blended
    monkeypatch.setattr(settings, "SEMANTIC_MODEL", "off")
    assert _by_meaning(index, text, query, lines, windows) == windows


def test_the_best_passage_of_a_section_is_picked_by_meaning_too(monkeypatch):
    from docs_mcp import settings

    query = "why are my gauge's heights wrong after some time"
    d = doc(("gauge", "Gauge", 1, None, "\n\n".join(DRIFT)))
    picked = passages(PageIndex(d), d.sections[0].text, query, 1, 110)
    assert picked[0].text.startswith("As the sensor ages")
    # By words alone the serial number wins: it holds "gauge", "height" and "time".
    monkeypatch.setattr(settings, "ABLATED", frozenset({"passage-semantic"}))
    assert passages(PageIndex(d), d.sections[0].text, query, 1, 110)[0].text.startswith("Each gauge")
