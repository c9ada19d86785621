"""specs: each tool's parameters are declared once; the library call, the MCP schema and the CLI agree with it."""

from __future__ import annotations

import argparse
import inspect

import pytest
from conftest import SITE, make_tools

from docs_mcp import settings as C
from docs_mcp.cli.arguments import parser
from docs_mcp.cli.options import cli_dest
from docs_mcp.tools.docs import DocsTools
from docs_mcp.tools.specs import REQUIRED, THE_CAP, TOOLS, ToolSpec
from docs_mcp.transport.server import build_server

pytestmark = pytest.mark.anyio
IDS = [t.name for t in TOOLS]


@pytest.mark.parametrize("spec", TOOLS, ids=IDS)
def test_the_library_call_takes_the_declared_parameters_in_order_with_their_defaults(spec: ToolSpec):
    sig = inspect.signature(getattr(DocsTools, spec.name))
    params = [p for p in sig.parameters.values() if p.name != "self"]
    assert [p.name for p in params] == [p.name for p in spec.params]
    for declared, actual in zip(spec.params, params, strict=True):
        expected = inspect.Parameter.empty if declared.default is REQUIRED else declared.default
        assert actual.default == expected, declared.name


async def test_the_mcp_schema_is_the_declaration():
    listing = await build_server(make_tools(str(SITE))).list_tools()
    assert [t.name for t in listing] == IDS
    for tool, spec in zip(listing, TOOLS, strict=True):
        assert tool.description == spec.description
        schema = tool.input_schema
        assert list(schema["properties"]) == [p.name for p in (*spec.params, *spec.session)]
        assert schema.get("required", []) == [p.name for p in spec.params if p.required]
        for p in (*spec.params, *spec.session):
            field = schema["properties"][p.name]
            assert field["description"] == p.description
            if not p.required:
                assert field["default"] == p.default
            assert (field.get("minimum"), field.get("maximum")) == (p.low, p.top(C.HARD_CAP)), p.name


@pytest.mark.parametrize("spec", TOOLS, ids=IDS)
def test_the_command_takes_every_parameter_with_its_flag_and_default(spec: ToolSpec):
    sub = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    actions = {a.dest: a for a in sub.choices[spec.command]._actions}
    for p in spec.params:
        action = actions[cli_dest(p)]
        if p.flag is None:
            assert action.option_strings == [] and action.required, p.name
        else:
            assert action.option_strings == [p.flag] and action.default == p.default, p.name


def test_a_ranged_parameter_says_its_range_to_the_model():
    for spec in TOOLS:
        for p in spec.params:
            if p.low is not None and p.high is not THE_CAP and p.high is not None:
                assert f"{p.low}-{p.high}" in p.description, p.name


def test_every_parameter_accepts_its_default():
    for spec in TOOLS:
        for p in spec.params:
            if not p.required:
                assert p.accepts(p.default, cap=1500), p.name  # even max_length's 5000 under a 1,500 cap
