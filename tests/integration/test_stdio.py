"""The real console entry point over stdio, as Claude Code starts it."""

from __future__ import annotations

import os
import sys

import pytest
from conftest import SITE

pytestmark = [pytest.mark.anyio, pytest.mark.slow]  # a server process per test


async def test_stdio_server_lists_tools_and_answers(tmp_path):
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "docs_mcp", "--source", str(SITE), "--cache-dir", str(tmp_path), "--no-index"],
        env={**os.environ},
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        assert "search_docs" in (init.instructions or "")
        assert init.server_info.name == "docslice"  # the program's name, whichever alias started it
        tools = await session.list_tools()
        assert {t.name for t in tools.tools} == {
            "search_docs",
            "search_in_doc",
            "get_doc_toc",
            "get_doc_section",
            "get_doc_content",
        }
        res = await session.call_tool("get_doc_section", {"url": "seed.html", "section_id": "chart-datum"})
        assert not res.is_error
        assert "### Chart datum" in res.content[0].text
        bad = await session.call_tool("get_doc_toc", {"url": "/etc/passwd"})
        assert bad.is_error and "not allowed" in bad.content[0].text
