"""A page of 150,000 distinct words (past PostgreSQL's 1 MB tsvector) is stored and found by both engines."""

from __future__ import annotations

import itertools
import string

import pytest

from docs_mcp.cli.app import App
from docs_mcp.cli.arguments import parser

pytestmark = pytest.mark.postgres

WORDS = 150_000


def distinct_words(count: int) -> list[str]:
    """`count` different made-up words of three syllables (bakase, bakasi, …)."""
    syllables = [c + v for c in "bcdfghjklmnprstvz" for v in "aeiou"]
    return ["".join(w) for w, _ in zip(itertools.product(syllables, repeat=3), range(count), strict=False)]


async def _built(folder, *where: str) -> App:
    app = App(parser().parse_args(["serve", "--source", f"docs={folder}", "--no-index", *where]), workers=1)
    try:
        await app.indexer.run()
    finally:
        await app.fetcher.aclose()
    return app


@pytest.mark.slow
@pytest.mark.anyio
@pytest.mark.timeout(240)
async def test_a_page_of_150000_distinct_words_is_stored_and_found_on_both_engines(tmp_path, postgres_url):
    words = distinct_words(WORDS)
    assert len(set(words)) == WORDS and set("".join(words)) <= set(string.ascii_lowercase)
    folder = tmp_path / "docs"
    folder.mkdir()
    paragraphs = "\n\n".join(" ".join(words[i : i + 20]) for i in range(0, WORDS, 20))
    (folder / "huge.md").write_text(f"# Lexicon\n\n{paragraphs}\n\n## Quillwort\n\nThe quillwort entry.\n")
    (folder / "small.md").write_text("# Small\n\nA small page about quillwort gardens.\n")
    for where in (["--cache-dir", str(tmp_path / "c")], ["--index-url", postgres_url]):
        app = await _built(folder, *where)
        try:
            assert app.index.page_count() == 2, where
            for word in (words[-1], words[WORDS // 2], "quillwort"):
                hits = app.search.search(word, 5)
                assert any(h.url.endswith("huge.md") for h in hits), (where, word)
        finally:
            app.index.close()


def test_a_limit_of_the_data_is_a_clear_error_that_does_not_say_retry(postgres_url):
    from docs_mcp.errors import IndexUnavailable
    from docs_mcp.store.postgres.store import PostgresStore

    store = PostgresStore(postgres_url)
    too_long = "SELECT string_agg(md5(i::text), ' ')::tsvector FROM generate_series(1, 40000) i"
    try:
        with pytest.raises(IndexUnavailable) as caught:
            store.write_transaction(lambda db: db.execute(too_long))
    finally:
        store.close()
    assert "too long for tsvector" in str(caught.value) and "retry" not in str(caught.value)
