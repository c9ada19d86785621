"""Stateless replicas of a team's PostgreSQL index: `serve --http --stateless --index-url …` answers any
request without a session, never crawls, sees pages a crawl job writes without a restart, says how fresh
its index is, answers /healthz and /readyz, and exits cleanly on SIGTERM."""

from __future__ import annotations

import json
import signal
import threading
import time

import httpx
import pytest
from test_http import Served

from docs_mcp.cli.main import main

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.timeout(180)]
QUERY = "harmonic constituents fitted by least squares"
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def _index(url: str, source: str, *more: str) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["index", "--source", source, "--index-url", url, "--workers", "1", *more])
    assert exc.value.code == 0


def _call(base: str, tool: str, **arguments) -> dict:
    """One tools/call as its own HTTP request: no initialize, no session id."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    response = httpx.post(base + "/mcp", json=body, headers=HEADERS, timeout=30)
    assert response.status_code == 200, response.text
    assert "mcp-session-id" not in response.headers
    return response.json()["result"]


def test_a_stateless_replica_serves_what_a_crawl_job_writes_without_a_restart(site_copy, postgres_url):
    replica = Served(
        "--http", "127.0.0.1:0", "--stateless", "--index-url", postgres_url, "--source", site_copy.url
    )
    base = replica.url.removesuffix("/mcp")
    try:
        assert "stateless" in replica.announcement
        assert httpx.get(base + "/healthz").json() == {"status": "alive"}
        empty = httpx.get(base + "/readyz")
        assert empty.status_code == 503 and "no page" in empty.json()["reason"]  # and it did not crawl
        _index(postgres_url, site_copy.url)  # the crawl job, from another process
        assert httpx.get(base + "/readyz").status_code == 200
        first = _call(base, "search_docs", query=QUERY)["content"][0]["text"]
        assert "harmonic" in first.lower() and "newest page fetched" in first
        (site_copy.directory / "fresh.html").write_text(
            "<html><head><title>Quokka tides</title></head><body><h1>Quokka tides</h1>"
            "<p>The quokka almanac lists every tide of the island.</p></body></html>"
        )
        (site_copy.directory / "index.html").write_text(
            (site_copy.directory / "index.html")
            .read_text()
            .replace("</body>", '<a href="fresh.html">f</a></body>')
        )
        _index(postgres_url, site_copy.url, "--refresh")
        found = _call(base, "search_docs", query="quokka almanac")["content"][0]["text"]
        assert "Quokka tides" in found
        # SIGTERM while a call is under way (the page takes 2 s): the call is answered, then the process ends.
        slow: list[dict] = []
        call = threading.Thread(
            target=lambda: slow.append(_call(base, "get_doc_content", url=site_copy.url + "_slow.html"))
        )
        call.start()
        time.sleep(0.7)
        replica.proc.send_signal(signal.SIGTERM)
        call.join(30)
        assert slow and "late" in slow[0]["content"][0]["text"]
    finally:
        replica.proc.send_signal(signal.SIGTERM)
        # uvicorn ends a graceful shutdown by raising the signal again: killed by SIGTERM, no traceback.
        assert replica.proc.wait(timeout=30) in (0, -signal.SIGTERM)


def test_a_replica_whose_database_is_down_is_alive_but_not_ready(site):
    url = "postgresql://docs:secret@127.0.0.1:9/docs?connect_timeout=1"
    replica = Served("--http", "127.0.0.1:0", "--stateless", "--index-url", url, "--source", site.url)
    base = replica.url.removesuffix("/mcp")
    try:
        assert httpx.get(base + "/healthz").status_code == 200
        # The store's first wait for a connection takes 5 s; /readyz answers within 2 s all the same, then
        # with the store's own reason once its breaker has tripped.
        reasons = []
        while not any("127.0.0.1:9" in r for r in reasons):
            t0 = time.monotonic()
            ready = httpx.get(base + "/readyz", timeout=15)
            assert ready.status_code == 503 and time.monotonic() - t0 < 2
            assert "secret" not in json.dumps(ready.json())
            reasons.append(ready.json()["reason"])
            assert len(reasons) < 20, reasons
            time.sleep(0.5)
    finally:
        replica.stop()


def test_a_replica_that_cannot_use_its_index_answers_mcp_calls_503_for_the_balancer(site):
    # A balancer moves a call on a 503 (nginx: proxy_next_upstream http_503), never on a tool error (200).
    url = "postgresql://docs:secret@127.0.0.1:9/docs?connect_timeout=1"
    replica = Served("--http", "127.0.0.1:0", "--stateless", "--index-url", url, "--source", site.url)
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "search_docs", "arguments": {"query": QUERY}},
    }
    try:
        for _ in range(3):
            answer = httpx.post(replica.url, json=body, headers=HEADERS, timeout=15)
            assert answer.status_code == 503 and answer.headers["retry-after"], answer.text
            error = answer.json()["error"]
            assert "this replica cannot use its index" in error["message"] and "secret" not in answer.text
        # Its stream endpoint is not held open for nothing: a stateless replica has none.
        stream = httpx.get(replica.url, headers={"accept": "text/event-stream"}, timeout=5)
        assert stream.status_code == 405 and stream.headers["allow"] == "POST"
    finally:
        replica.stop()
