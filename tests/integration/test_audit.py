"""`docslice audit` on the fixture site: every kind of known item asked, the pages that really rank above the
right one, the same report on every run, page text escaped."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SITE

from docs_mcp.audit.queries import paraphrase

pytestmark = pytest.mark.timeout(180)  # subprocesses waited on for up to 120 s


def docslice(*args: str, cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "DOCS_MCP_CACHE_DIR": str(cache)}
    run = subprocess.run(
        [sys.executable, "-m", "docs_mcp", *args], capture_output=True, text=True, env=env, timeout=120
    )
    assert run.returncode == 0, run.stderr
    return run


@pytest.fixture(scope="module")
def site_cache(tmp_path_factory) -> Path:
    cache = tmp_path_factory.mktemp("audit")
    docslice("index", "--source", str(SITE), "--workers", "1", cache=cache)
    return cache


def audit_json(cache: Path, *more: str) -> dict:
    return json.loads(docslice("audit", "--json", "--source", str(SITE), *more, cache=cache).stdout)


def hit_pages(cache: Path, query: str) -> list[str]:
    """The pages `docslice search` lists for a query, best first."""
    out = docslice("search", query, "--source", str(SITE), "--max-results", "10", cache=cache).stdout
    return re.findall(r"^   (\S+?\.html)(?:#\S*)? · fetched", out, re.M)


def test_the_audit_asks_every_kind_and_names_a_thief_that_really_ranks_above_the_right_page(site_cache):
    report = audit_json(site_cache)
    assert report["pages_listed"] == report["pages_sampled"] == 17
    kinds = report["site"]["kinds"]
    assert kinds["title"]["items"] == 17  # every page has a title
    assert all(kinds[k]["items"] > 0 for k in ("heading", "name", "link", "paraphrase"))
    assert kinds["all"]["items"] == sum(
        kinds[k]["items"] for k in ("title", "heading", "name", "link", "paraphrase")
    )
    assert 0 < kinds["all"]["at1"] <= kinds["all"]["at3"] <= kinds["all"]["found"] <= 1
    # The 736 KB reference page holds every module's text: it stands above the right page most often.
    thief = report["site"]["thieves"][0]
    assert thief["url"] == "big-reference.html" and thief["title"] == "API reference"
    assert thief["above"] > report["site"]["thieves"][1]["above"]
    assert thief["share"] == round(thief["above"] / kinds["all"]["items"], 4)
    # And it does: search_docs itself lists it before the page a missed query was made from.
    missed = [m for m in report["site"]["misses"] if "big-reference.html" in m["above"]]
    assert missed
    for m in missed:
        pages = hit_pages(site_cache, m["query"])
        right = pages.index(m["page"]) if m["page"] in pages else len(pages)
        assert pages.index("big-reference.html") < right, (m, pages)
        assert m["rank"] == (right + 1 if m["page"] in pages else 0)
    inside = report["in_page"]["kinds"]
    assert inside["heading"]["items"] > 0 and inside["paraphrase"]["items"] > 0


def test_two_runs_give_the_same_report(site_cache):
    first, second = audit_json(site_cache, "--pages", "9"), audit_json(site_cache, "--pages", "9")
    assert first["pages_sampled"] == 9
    first.pop("seconds"), second.pop("seconds")
    assert first == second


def test_the_report_is_markdown_with_the_pages_text_escaped(tmp_path, monkeypatch):
    # Each topic page is one paragraph titled by its heading: the thin page titled by the query would lead
    # (titled-thin), and the all-in-one page's best cosine would lose what its many sections give it
    # (cosine-breadth); this test needs the all-in-one page above them, to see its title escaped.
    monkeypatch.setenv("DOCSLICE_ABLATE", "titled-thin,cosine-breadth")
    site = tmp_path / "tides"
    site.mkdir()
    topics = {
        "drift.html": (
            "Gauge drift",
            "Sensors lose accuracy over months of salt water exposure near harbours.",
        ),
        "moorings.html": (
            "Buoy moorings",
            "Chains and anchors keep a floating gauge above its station mark.",
        ),
        "datums.html": (
            "Chart datums",
            "Soundings are reduced to the lowest astronomical tide at each port.",
        ),
    }
    page = "<html><head><title>{t}</title></head><body><h1>{t}</h1>{body}</body></html>"
    for name, (title, text) in topics.items():
        (site / name).write_text(page.format(t=title, body=f"<p>{text}</p>"))
    # One page holding every topic, twice over, under a title with a bidi override and a pipe.
    every = "".join(f"<h2>{t} and {t}</h2><p>{x} {x}</p>" for t, x in topics.values())
    (site / "all.html").write_text(page.format(t="Everything \u202e | at once", body=every))
    out = docslice("audit", "--source", str(site), cache=tmp_path / "cache").stdout
    assert out.startswith("# Findability audit: tides\n")
    assert "| kind | known items | top 1 | top 3 | in top 10 |" in out
    assert re.search(r"^\| title \| 4 \| ", out, re.M)
    thieves = out.split("## Thieves", 1)[1].split("##", 1)[0]
    assert "| all.html | Everything \\u202e \\| at once |" in thieves  # escaped, the pipe too
    assert "\u202e" not in out


def test_a_paraphrase_is_the_first_sentence_without_the_headings_words():
    text = "Harmonic constituents are fitted to hourly gauge readings by least squares. Then more."
    assert (
        paraphrase("Fitting harmonic constituents", text) == "are to hourly gauge readings by least squares."
    )
    assert paraphrase("Readings", "Gauge readings.") == ""  # too few words left to ask anything


def test_the_sites_benchmark_tables_an_audit_and_pools_it_by_split(site_cache, tmp_path):
    """benchmarks/quality/audit_sites.py --report: one row per site kept, pooled per half (a real audit's JSON)."""
    data = audit_json(site_cache)
    info = {"name": "flask", "generator": "Sphinx", "path": str(SITE), "package": "-", "split": "tuning"}
    data.update(info=info, index_seconds=3.0, index_built=True, load=[1.0, 2.0])
    (tmp_path / "flask.json").write_text(json.dumps(data))
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "quality" / "audit_sites.py"
    run = subprocess.run(
        [sys.executable, str(script), "--sites", "flask,mkdocs", "--report", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    row = next(line for line in run.stdout.splitlines() if line.startswith("| flask |"))
    items = data["site"]["kinds"]["all"]["items"]
    assert f"| flask | Sphinx | tuning | 17 | 17 | {items} |" in row
    assert f"big-reference.html ({data['site']['thieves'][0]['above']}/{items})" in row
    assert "mkdocs" not in run.stdout  # no JSON kept for it: left out, not a row of zeros
    at3 = data["site"]["kinds"]["all"]["at3"]
    assert f"tuning: 1 sites, {items:,} known items: site search success@1" in run.stdout
    assert f"@3 {at3:.3f};" in run.stdout


def _audited(tmp_path: Path, pages: dict[str, tuple[str, str]]) -> dict:
    """The audit's JSON report of a folder site of these pages (name: title, body), indexed first."""
    site = tmp_path / "site"
    site.mkdir()
    for name, (title, body) in pages.items():
        html = f"<html><head><title>{title}</title></head><body><main><h1>{title}</h1>{body}</main></body></html>"
        (site / name).write_text(html, encoding="utf-8")
    cache = tmp_path / "cache"
    docslice("index", "--source", str(site), "--workers", "1", cache=cache)
    return json.loads(docslice("audit", "--json", "--source", str(site), cache=cache).stdout)


def test_link_words_several_sampled_pages_share_ask_for_none_of_them(tmp_path):
    """Links saying "Django 1.8.2 release notes" of each release page say "django releas note" of all (versions
    are not words): no page is asked for by them; a page its links name alone still is."""
    releases = ["1.8.2", "1.8.3", "1.9.1"]
    links = "".join(f'<li><a href="{v}.html">Django {v} release notes</a></li>' for v in releases)
    links += '<li><a href="tutorial.html">Writing your first polling app</a></li>'
    pages = {"index.html": ("Contents", f"<ul>{links}</ul>")}
    pages |= {
        f"{v}.html": (f"Django {v} release notes", f"<p>Django {v} fixes bugs in {v}.</p>") for v in releases
    }
    pages["tutorial.html"] = ("Tutorial", "<p>Create a project with startproject and run the server.</p>")
    report = _audited(tmp_path, pages)
    assert report["pages_sampled"] == 5
    assert report["site"]["kinds"]["link"]["items"] == 1  # the tutorial's alone


def test_link_words_search_reads_alike_ask_for_none_of_them(tmp_path):
    """Links saying "Version 3.5.4" and "3.5.4" of one release page, "Version 3.6.1" and "3.6.1" of another, give
    them the link words "3 4 5 version" and "1 3 6 version", which differ, but search reads both as `version`
    (one-character numbers are no terms): neither release page is asked for by them; the tutorial still is."""
    releases = ["3.5.4", "3.6.1"]
    links = "".join(
        f'<li><a href="{v}.html">Version {v}</a> (<a href="{v}.html">{v}</a>)</li>' for v in releases
    )
    links += '<li><a href="tutorial.html">Writing your first query</a></li>'
    pages = {"index.html": ("Contents", f"<ul>{links}</ul>")}
    pages |= {
        f"{v}.html": (f"Release {v}", f"<p>This release fixes a rare crash in {v}.</p>") for v in releases
    }
    pages["tutorial.html"] = ("Tutorial", "<p>Open a database file and select rows from a table.</p>")
    report = _audited(tmp_path, pages)
    assert report["pages_sampled"] == 4
    assert report["site"]["kinds"]["link"]["items"] == 1  # the tutorial's alone
