"""A build under way is no alarm (issue 45, item 5): a crawl job renews a lease on its build while it runs, so
answers served meanwhile from the same index say nothing of it; a build killed midway is said once its lease
runs out. Both stores: an index file shared through a cache folder, and a real PostgreSQL."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]
ALARM = "has not finished"
#: The lease the crawl jobs of these tests hold (seconds): short, so that one killed runs out quickly.
LEASE = 2.0


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def index_args(request, tmp_path) -> list[str]:
    if request.param == "postgres":
        return ["--index-url", request.getfixturevalue("postgres_url")]
    return ["--cache-dir", str(tmp_path / "cache")]


@pytest.fixture
def slow_site(site_copy):
    """The fixture site with a page that takes 2 s to answer: every build of it lasts that long at least."""
    index = site_copy.directory / "index.html"
    index.write_text(index.read_text().replace("</body>", '<a href="_slow.html">late</a></body>'))
    return site_copy


def _crawl(site, index_args: list[str], *more: str, lease: float = LEASE) -> subprocess.Popen:
    """A crawl job in a process of its own, as a scheduled one runs."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "docs_mcp",
            "index",
            "--source",
            site.url,
            "--workers",
            "1",
            *index_args,
            *more,
        ],
        env={**os.environ, "DOCSLICE_BUILD_LEASE": str(lease)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


class Replica:
    """What a server answers from the same index, and the build outcome stored there."""

    def __init__(self, site, index_args: list[str]):
        from docs_mcp.cli.app import App
        from docs_mcp.cli.arguments import parser

        self.app = App(parser().parse_args(["serve", "--source", site.url, *index_args, "--no-index"]))
        self.meta = "build:" + self.app.sources.sources[0].root

    def outcome(self):
        from docs_mcp.model.progress import Outcome

        return Outcome.from_json(self.app.index.meta(self.meta))

    def answer(self) -> str:
        return asyncio.run(self.app.tools.search_docs("tide gauge"))

    def close(self) -> None:
        asyncio.run(self.app.tools.aclose())
        self.app.index.close()


def test_answers_during_a_refresh_say_nothing_of_it_and_a_killed_build_is_said(slow_site, index_args):
    assert _crawl(slow_site, index_args).wait(timeout=120) == 0
    replica = Replica(slow_site, index_args)
    try:
        assert ALARM not in replica.answer()
        refresh = _crawl(slow_site, index_args, "--refresh")
        answers, leases = [], set()
        while refresh.poll() is None:
            last = replica.outcome()
            if last is not None and not last.finished:
                leases.add(last.lease)
                answers.append(replica.answer())
            time.sleep(0.1)
        assert refresh.returncode == 0
        assert answers and len(leases) > 1, (len(answers), leases)  # seen under way, its lease renewed
        assert not [a for a in answers if ALARM in a or "pages may be missing" in a], answers[0][-400:]
        killed = _crawl(slow_site, index_args, "--refresh")
        while (last := replica.outcome()) is None or last.finished:
            assert killed.poll() is None
            time.sleep(0.05)
        killed.kill()
        killed.wait()
        time.sleep(LEASE * 1.2)
        assert f"{ALARM}: pages may be missing" in replica.answer()
    finally:
        replica.close()


def test_a_build_killed_on_this_machine_is_said_at_once_not_when_its_lease_runs_out(slow_site, index_args):
    assert _crawl(slow_site, index_args).wait(timeout=120) == 0
    replica = Replica(slow_site, index_args)
    try:
        killed = _crawl(slow_site, index_args, "--refresh", lease=600)
        while (last := replica.outcome()) is None or last.finished:
            assert killed.poll() is None
            time.sleep(0.05)
        assert last.lease > time.time() + 300  # alive for ten minutes by its lease alone
        assert ALARM not in replica.answer()  # under way: no alarm
        killed.kill()
        killed.wait()
        assert f"{ALARM}: pages may be missing" in replica.answer()
    finally:
        replica.close()
