"""The crawl as a job: `docslice index --index-url …` fills a shared PostgreSQL index from any machine, and
two jobs for one source never crawl it twice (the second waits for the first, naming it, then finds every
page fresh)."""

from __future__ import annotations

import os
import re
import select
import socket
import subprocess
import sys
import time

import pytest

# psycopg (the test extra): without it these tests are skipped, saying why, rather than failing collection.
pytest.importorskip(
    "psycopg", reason="PostgreSQL tests need psycopg (the test extra: pip install -e '.[test]')"
)
from docs_mcp.store.interface import Scope
from docs_mcp.store.postgres.store import PostgresStore

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.timeout(180)]


def _job(url: str, source: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "docs_mcp", "index", "--index-url", url, "--source", source, "--workers", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "DOCS_MCP_INDEX_URL"},
    )


def said(job: subprocess.Popen, text: str, timeout: float = 60) -> str:
    """What a job printed up to the line holding `text`, read as it comes (the job waits there): a job's start
    takes seconds on a busy machine, so a fixed sleep could end before it reached the lock."""
    seen = b""
    deadline = time.monotonic() + timeout
    while text.encode() not in seen or not seen.endswith(b"\n"):
        left = deadline - time.monotonic()
        shown = seen.decode(errors="replace")
        assert left > 0 and select.select([job.stdout], [], [], left)[0], f"not said in {timeout} s: {shown}"
        chunk = os.read(job.stdout.fileno(), 65536)
        assert chunk, f"the job ended without saying {text!r}: {shown}"
        seen += chunk
    return seen.decode()


def test_a_second_job_for_a_source_waits_for_the_first_and_crawls_nothing_again(site, postgres_url):
    holder = PostgresStore(postgres_url)
    lock = holder.build_lock(site.url)
    assert lock.try_acquire()  # another machine's job, crawling this source
    job = _job(postgres_url, site.url)
    try:
        early = said(job, "waiting for another docslice process")
        time.sleep(3)
        assert job.poll() is None  # still waiting, not crawling beside it
        assert holder.page_count() == 0
    finally:
        lock.release()
    rest, _ = job.communicate(timeout=120)
    out = early + rest
    assert job.returncode == 0, out
    assert f"waiting for another docslice process (pid {os.getpid()} on {socket.gethostname()}" in out
    pages = holder.page_count()
    assert pages > 10 and f"{pages} fetched" in out
    again, _ = _job(postgres_url, site.url).communicate(timeout=120)
    assert "0 fetched" in again and f"{pages} still fresh" in again
    holder.close()


def test_a_refresh_that_waited_for_another_finds_the_pages_it_revalidated_fresh_and_says_the_wait(
    site, postgres_url
):
    _job(postgres_url, site.url).communicate(timeout=120)
    holder = PostgresStore(postgres_url)
    lock = holder.build_lock(site.url)
    assert lock.try_acquire()  # another job's --refresh, under way
    job = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "docs_mcp",
            "index",
            "--refresh",
            "--index-url",
            postgres_url,
            "--source",
            site.url,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "DOCS_MCP_INDEX_URL"},
    )
    try:
        early = said(job, "waiting for another docslice process")
        assert job.poll() is None
        keys = [p.key for p in holder.pages(Scope((site.url,)))]
        for key in keys:  # the other job revalidates every page meanwhile (each a 304)
            holder.touch(key)
    finally:
        lock.release()
    rest, _ = job.communicate(timeout=120)
    out = early + rest
    assert job.returncode == 0, out
    # Nothing fetched, nothing revalidated (a count of 0 is left out of the summary): every page fresh.
    assert "0 fetched" in out and "unchanged (304)" not in out and f"{len(keys)} still fresh" in out, out
    assert "the other build is done (waited " in out
    waited = re.search(r"in [\d.]+s \(after waiting ([\d.]+)s for another build\)", out)
    assert waited and float(waited.group(1)) > 0, out
    holder.close()
