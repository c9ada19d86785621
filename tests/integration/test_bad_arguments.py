"""One policy for bad arguments, generated from tools/specs.py: every parameter of every tool, given a value of the
wrong type or outside its range, gets one error naming the parameter, the value and the range, in our words."""

from __future__ import annotations

import json
import re

import pytest
from conftest import call, model_view

from docs_mcp import settings as C
from docs_mcp.tools.specs import THE_CAP, TOOLS, Param, ToolSpec
from docs_mcp.transport.server import build_server

pytestmark = pytest.mark.anyio
#: Text that would mean a library's message reached the model.
LIBRARY_WORDS = ("pydantic", "validation error", "errors.pydantic.dev", "Input should be", "Traceback")


def good_arguments(spec: ToolSpec, site_url: str) -> dict[str, object]:
    """Arguments every tool answers without an error (a page with a `resampling` section)."""
    good = {"url": site_url + "sphinx.html", "query": "resampling", "section_id": "resampling"}
    return {p.name: good[p.name] for p in spec.params if p.required}


def bad_values(p: Param) -> list[tuple[str, object]]:
    """The values this parameter must refuse, each with what is wrong with it."""
    if p.type is int:
        top = C.HARD_CAP if p.high is THE_CAP else p.high
        values = [("text", "abc"), ("fraction", 1.5), ("boolean", True), ("list", [1]), ("null", None)]
        values += [("negative", -1), ("huge", 10**12)]
        if p.low > 0:
            values.append(("zero", 0))
        if top is not None:
            values.append(("one over", top + 1))
        return values
    if p.type is bool:
        return [("text", "maybe"), ("number", 2), ("null", None), ("list", [True])]
    values = [("number", 123), ("list", ["x"]), ("object", {"a": 1})]
    if not isinstance(None, p.type):
        values.append(("null", None))
    if p.nonempty:
        values += [("empty", ""), ("blank", "   ")]
    return values


def as_sent(value: object) -> str:
    """How the refusal quotes a value: a string in quotes, anything else as the JSON the caller sent."""
    return repr(value) if isinstance(value, str) else json.dumps(value)


def expected_range(p: Param, value: object) -> str:
    """The range, in the words of the refusal (a start past the page's end: the page's own range)."""
    if p.type is bool:
        return "true or false"
    if p.type is int:
        top = C.HARD_CAP if p.high is THE_CAP else p.high
        if top is None:
            return rf"from {p.low} to \d+" if type(value) is int and value > 0 else f"≥ {p.low}"
        return f"from {p.low} to {top}"
    return ("a non-empty string" if p.nonempty else "a string") + (
        " or null" if isinstance(None, p.type) else ""
    )


CASES = [
    pytest.param(spec, p, value, id=f"{spec.name}-{p.name}-{what}")
    for spec in TOOLS
    for p in spec.params
    for what, value in bad_values(p)
]


@pytest.fixture(scope="module")
def server(site):
    from conftest import make_tools

    return build_server(make_tools(site.url))


@pytest.mark.parametrize(("spec", "param", "value"), CASES)
async def test_a_bad_value_gets_one_error_naming_the_parameter_the_value_and_the_range(
    server, site, spec: ToolSpec, param: Param, value: object
):
    res = await call(server, spec.name, **{**good_arguments(spec, site.url), param.name: value})
    text = model_view(res)
    assert res.is_error, text
    assert text.count(" must be ") == 1, text  # one refusal: only this parameter is wrong
    assert re.search(rf"\b{param.name} must be [^,]*{expected_range(param, value)}", text), text
    assert f"got {as_sent(value)}" in text, text
    assert not any(word in text for word in LIBRARY_WORDS), text


@pytest.mark.parametrize("spec", TOOLS, ids=[t.name for t in TOOLS])
async def test_a_missing_required_argument_is_named_with_its_range(server, site, spec: ToolSpec):
    for p in (p for p in spec.params if p.required):
        args = {k: v for k, v in good_arguments(spec, site.url).items() if k != p.name}
        res = await call(server, spec.name, **args)
        text = model_view(res)
        assert res.is_error and f"{p.name} is required: {expected_range(p, None)}" in text, text
        assert not any(word in text for word in LIBRARY_WORDS), text


async def test_numbers_and_switches_sent_as_text_are_read_as_before(server, site):
    res = await call(
        server,
        "search_in_doc",
        url=site.url + "sphinx.html",
        query="resampling",
        max_sections="1",
        max_length=2000.0,
        include_code_blocks="true",
    )
    assert not res.is_error, model_view(res)


async def test_every_refusal_in_one_call_is_in_its_one_error(server, site):
    res = await call(server, "get_doc_content", url=site.url + "sphinx.html", max_length=-5, start_index=-1)
    text = model_view(res)
    assert res.is_error and text.count(" must be ") == 2, text
    assert "max_length must be an integer from 0 to 20000 (0 = the cap), got -5" in text
    assert "start_index must be an integer ≥ 0, got -1" in text


async def test_the_range_follows_the_servers_cap(site):
    from conftest import make_tools

    server = build_server(make_tools(site.url, max_chars=1500))
    res = await call(server, "get_doc_content", url=site.url + "sphinx.html", max_length=1501)
    assert res.is_error and "max_length must be an integer from 0 to 1500" in model_view(res)
    # the default (5,000) stays valid under a lower cap: it means the cap
    res = await call(server, "get_doc_content", url=site.url + "sphinx.html")
    assert not res.is_error and "chars 0-" in model_view(res)
