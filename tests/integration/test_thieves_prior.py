"""The thieves' prior (issue 42 item 3): a build's self-audit on the learning half of a site finds the page that
stands above the right one for other pages' known items, and site search lowers it; the audit samples only
the other half; DOCSLICE_ABLATE=prior gives the old order back."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ranked_in_folder, run

from docs_mcp import settings
from docs_mcp.audit.queries import learning
from docs_mcp.audit.run import audit_source, sample
from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser
from docs_mcp.search.site.prior import PRIOR_META
from docs_mcp.store.interface import Scope

pytestmark = [pytest.mark.timeout(180)]

SYLLABLES = ("ka", "lo", "mi", "ru", "te", "vo", "zan", "pel", "dor", "quis", "bex", "ful", "gor", "hin")
TOPICS = 60
PAGE = "<html><head><title>{t}</title></head><body><h1>{t}</h1>{body}</body></html>"


def word(n: int) -> str:
    """A made-up word, different for every n (three syllables: no stemmer folds two of them)."""
    k = len(SYLLABLES)
    return SYLLABLES[n % k] + SYLLABLES[(n // k) % k] + SYLLABLES[(n // k // k) % k] + "x"


def topic(i: int) -> tuple[str, str, str, str]:
    """A topic's title, first sentence, heading and second sentence: words of its own."""
    w = [word(i * 16 + j) for j in range(16)]
    return (
        f"{w[0]} {w[1]}",
        f"The {w[2]} holds {w[3]} and {w[4]} beside {w[5]} with {w[6]} near {w[7]}.",
        f"{w[8]} {w[9]}",
        f"Each {w[10]} turns {w[11]} into {w[12]} past {w[13]} for {w[14]} and {w[15]}.",
    )


def hub_site(folder: Path) -> None:
    """TOPICS pages of a topic each, and one page holding every topic's text twice over: the thief."""
    folder.mkdir()
    for i in range(TOPICS):
        title, first, heading, second = topic(i)
        body = f"<p>{first}</p><h2>{heading}</h2><p>{second}</p>"
        (folder / f"topic{i}.html").write_text(PAGE.format(t=title, body=body))
    every = "".join(
        f"<h2>{title} and {heading}</h2><p>{first} {second} {first} {second}</p>"
        for title, first, heading, second in map(topic, range(TOPICS))
    )
    (folder / "everything.html").write_text(PAGE.format(t="Everything at once", body=every))


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> tuple[Path, Path]:
    """The site indexed by words alone (as `lexical_only`: with the semantic blend, this site has no thief)."""
    base = tmp_path_factory.mktemp("prior")
    hub_site(base / "site")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(settings, "PRIOR_ON", True)
        mp.setattr(settings, "SEMANTIC_MODEL", "off")
        mp.setenv("DOCS_MCP_SEMANTIC_MODEL", "off")
        run(ranked_in_folder(base / "site", base / "cache", "warm"))
    return base / "site", base / "cache"


def unseen_query() -> tuple[str, str]:
    """A paraphrase-like query of a topic page outside the learning half (the prior never saw it asked)."""
    i = next(i for i in range(TOPICS) if not learning(f"topic{i}.html"))
    return f"{topic(i)[1]} {topic(i)[3]}", f"topic{i}.html"


def test_a_hub_that_steals_other_pages_answers_gets_a_prior_and_the_right_page_comes_first(
    indexed, lexical_only
):
    site, cache = indexed
    with sqlite3.connect(cache / "index.sqlite") as db:
        stored = dict(db.execute("SELECT key, value FROM meta WHERE key LIKE ?", (PRIOR_META + "%",)))
    assert list(stored) == [PRIOR_META + str(site) + "/"]
    prior = json.loads(stored[PRIOR_META + str(site) + "/"])
    assert list(prior) == [str(site / "everything.html")] and prior[str(site / "everything.html")] > 0.5
    query, right = unseen_query()
    pages = run(ranked_in_folder(site, cache, query))
    assert Path(pages[0]).name == right, pages


def test_ablation_gives_the_hub_its_old_place(indexed, lexical_only, monkeypatch):
    site, cache = indexed
    monkeypatch.setattr(settings, "ABLATED", settings.ABLATED | {"prior"})
    query, right = unseen_query()
    pages = [Path(p).name for p in run(ranked_in_folder(site, cache, query))]
    assert pages.index("everything.html") < pages.index(right), pages


def test_the_audit_never_samples_a_page_the_prior_learned_from(indexed):
    site, cache = indexed
    args = ["serve", "--source", f"docs={site}", "--cache-dir", str(cache), "--no-index"]
    app = App(parser().parse_args(args), workers=1)
    try:
        source = app.sources.sources[0]
        with app.index.reading() as reads:
            keys = [key for key, _ in reads.listed_pages(Scope.of([source]))]
        audited = {key for key, _ in sample(app.search, source, keys, len(keys))}
        learned = {key for key, _ in sample(app.search, source, keys, len(keys), learn=True)}
        assert audited and learned and not audited & learned and audited | learned == set(keys)
        report = audit_source(app.search, source, len(keys))
        assert len(report.sampled) == len(audited)
        assert not any(learning(Path(url).name) for url in report.sampled)
    finally:
        run(app.fetcher.aclose())
        app.index.close()


@pytest.mark.slow
@pytest.mark.postgres
def test_a_postgresql_build_learns_the_prior_too_and_its_search_lowers_the_hub(
    tmp_path, postgres_url, lexical_only
):
    pytest.importorskip("psycopg", reason="PostgreSQL tests need psycopg (the test extra)")
    from docs_mcp.search.site.ranker import SiteRanker
    from docs_mcp.store.postgres.store import PostgresStore

    hub_site(tmp_path / "site")
    args = ["index", "--index-url", postgres_url, "--source", str(tmp_path / "site"), "--workers", "1"]
    env = {**{k: v for k, v in os.environ.items() if k != "DOCS_MCP_INDEX_URL"}, "DOCSLICE_PRIOR": "on"}
    job = subprocess.run([sys.executable, "-m", "docs_mcp", *args], capture_output=True, text=True, env=env)
    assert job.returncode == 0, job.stderr
    store = PostgresStore(postgres_url)
    try:
        prefix = str(tmp_path / "site") + os.sep
        assert list(json.loads(store.meta(PRIOR_META + prefix) or "{}")) == [prefix + "everything.html"]
        query, right = unseen_query()
        hits = SiteRanker(store).search(query, 5, Scope((prefix,)))
        assert hits[0].url == prefix + right, [h.url for h in hits]
    finally:
        store.close()
