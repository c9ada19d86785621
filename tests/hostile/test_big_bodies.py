"""Request bodies that expand when parsed (issue 43, item 5): a body holding more JSON values than any call of
these tools needs is refused (413) before the SDK parses it; the same count of commas inside a string is text,
and is served. A real uvicorn and the SDK's app on loopback (stateless: no session needed)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from conftest import SITE, make_tools

from docs_mcp.transport.http import Bind, Serving, build_app, listen
from docs_mcp.transport.requests import MAX_BODY_VALUES
from docs_mcp.transport.server import build_server

from .front_door import InThread, post


@pytest.fixture(scope="module")
def served() -> Iterator[InThread]:
    bind = Bind("127.0.0.1", 0)
    sock = listen(bind)
    app = build_app(build_server(make_tools(str(SITE))), bind, sock, serving=Serving(stateless=True))
    running = InThread(app, sock)
    yield running
    running.stop()


def call(arguments: str) -> str:
    """A tools/call of search_docs with `arguments` (JSON text) as they are sent."""
    head = (
        '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "search_docs", "arguments": '
    )
    return head + arguments + "}}"


def test_an_unused_argument_of_many_objects_is_refused_before_it_is_parsed(served):
    padding = ",".join(["{}"] * (2 * MAX_BODY_VALUES))
    status, body, _ = post(served.host, served.port, call('{"query": "tide", "padding": [' + padding + "]}"))
    assert status == 413, (status, body[:300])
    message = json.loads(body)["error"]["message"]
    assert message.startswith("request refused: its body holds over 10,000 JSON values"), message


def test_commas_and_brackets_inside_a_string_are_text_not_values(served):
    query = json.dumps("tide tables " + ",[{" * MAX_BODY_VALUES)
    status, body, _ = post(served.host, served.port, call('{"query": ' + query + "}"))
    assert status == 200 and '"result"' in body, (status, body[:300])


def test_a_call_under_the_limit_is_answered(served):
    padding = ",".join(["{}"] * 100)
    status, body, _ = post(
        served.host, served.port, call('{"query": "tide tables", "padding": [' + padding + "]}")
    )
    assert status == 200 and "tide" in json.loads(body)["result"]["content"][0]["text"].lower(), body[:300]
