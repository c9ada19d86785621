"""Passwords in an index address are never printed (issue 34, item 4): in every form libpq reads, with and
without psycopg installed, in the store's messages, on stderr, in search_docs' answer and in /readyz."""

from __future__ import annotations

import http.client
import json
import sys
import time

import pytest
from conftest import SITE

from docs_mcp.store.address import redacted, scrubbed

from .conftest import docslice
from .front_door import Served

SECRET = "Zq7-secret-W9"
#: Every form of one password; nothing listens on port 9 of loopback, so each is refused fast.
ADDRESSES = [
    f"postgresql://docs:{SECRET}@127.0.0.1:9/db",
    f"postgresql://docs@127.0.0.1:9/db?password={SECRET}",
    f"postgresql://docs@127.0.0.1:9/db?sslmode=disable&password={SECRET}&connect_timeout=2",
    f"host=127.0.0.1 port=9 password={SECRET} dbname=db",
    f"host=127.0.0.1 port=9 password='{SECRET} with spaces' dbname=db",
    f"postgresql://docs:{SECRET}@x@127.0.0.1:9/db",  # an unencoded '@' in the password
    f"postgresql://docs:{SECRET.replace('-', '%2D')}@127.0.0.1:9/db",  # percent-encoded
]
#: What of the secret may not appear: the whole, and the parts an '@' or a space would split off.
PIECES = [SECRET, "Zq7", "W9"]


def leaks(text: str) -> list[str]:
    return [p for p in PIECES if p in text]


@pytest.fixture(params=["psycopg", "patterns"])
def parser(request, monkeypatch):
    """Both ways of reading an address: psycopg's conninfo, and the patterns used when psycopg is absent."""
    if request.param == "psycopg":
        pytest.importorskip("psycopg")
    else:
        monkeypatch.setitem(sys.modules, "psycopg.conninfo", None)  # `import` then raises ImportError
    return request.param


@pytest.mark.parametrize("url", ADDRESSES)
def test_every_form_of_password_is_masked(url, parser):
    shown = redacted(url)
    assert leaks(shown) == [] and "***" in shown, shown
    assert "127.0.0.1" in shown


def test_an_address_without_a_password_is_shown_as_given(parser):
    assert redacted("postgresql://docs@db.example:5432/docs") == "postgresql://docs@db.example:5432/docs"
    assert redacted("host=db.example dbname=docs") == "host=db.example dbname=docs"


@pytest.mark.parametrize("url", ADDRESSES)
def test_psycopgs_own_message_is_scrubbed(url):
    psycopg = pytest.importorskip("psycopg")
    with pytest.raises(psycopg.Error) as caught:
        psycopg.connect(url, connect_timeout=2)
    message = scrubbed(str(caught.value), url)
    assert leaks(message) == [], message


@pytest.mark.parametrize("url", ADDRESSES[1::2])  # a CLI start each: every other form (all are masked above)
def test_an_unreachable_index_is_reported_without_its_password(url, tmp_path):
    pytest.importorskip("psycopg")
    run = docslice(tmp_path, "--index-url", url, "search", "tide tables")
    said = run.stdout + run.stderr
    assert "cannot use the index at" in said, said[-500:]
    assert leaks(said) == [], said[-500:]


def get(served: Served, path: str, **headers: str) -> tuple[int, dict]:
    conn = http.client.HTTPConnection(served.host, served.port, timeout=30)
    try:
        conn.request("GET", path, headers={"Host": f"{served.host}:{served.port}", **headers})
        res = conn.getresponse()
        return res.status, json.loads(res.read() or b"{}")
    finally:
        conn.close()


@pytest.mark.slow
def test_readyz_is_behind_the_host_check_and_tells_its_reason_only_with_the_token(tmp_path):
    pytest.importorskip("psycopg")
    token = "readyz-token-0123456789abcdef"
    url = f"postgresql://docs@127.0.0.1:9/db?password={SECRET}"
    served = Served(
        "127.0.0.1:0",
        "--source",
        str(SITE),
        "--cache-dir",
        str(tmp_path),
        "--index-url",
        url,
        env={"DOCS_MCP_TOKEN": token},
    )
    try:
        status, body = get(served, "/readyz", Host="evil.example")
        assert status == 421 and leaks(json.dumps(body)) == []
        status, body = get(served, "/readyz")
        assert status == 503 and "127.0.0.1:9" not in body["reason"] and "token" in body["reason"]
        # The first checks may only say the store did not answer in time (/readyz answers within 2 s); once the
        # store's own wait ends, its breaker gives the reason at once.
        deadline = time.monotonic() + 15
        while True:
            status, body = get(served, "/readyz", Authorization=f"Bearer {token}")
            if "cannot use the index at" in body["reason"] or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert status == 503 and "cannot use the index at" in body["reason"], body
        assert leaks(body["reason"]) == []
        assert get(served, "/healthz", Host="evil.example")[0] == 200  # liveness says nothing
        assert leaks("".join(served.stderr())) == []
    finally:
        served.stop()
