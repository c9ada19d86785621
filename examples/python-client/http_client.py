"""Ask a running docslice server from a Python script over streamable HTTP.

    docslice serve --http 8000 --source https://docs.python.org/3/      # in another terminal
    python http_client.py http://127.0.0.1:8000/mcp "json dumps sort keys and indent"

It lists the tools, searches, then reads the best hit's section. A server that wants a bearer token
(`--token-file`) gets the one in $DOCSLICE_TOKEN.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys

from mcp import ClientSession
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
from mcp.types import CallToolResult


def text_of(result: CallToolResult) -> str:
    """What a model reads of a tool's answer: its structured content when it has some, else its text."""
    if result.structured_content is not None:
        return json.dumps(result.structured_content, indent=2, ensure_ascii=False)
    return "\n".join(block.text for block in result.content if block.type == "text")


async def main(url: str, question: str) -> int:
    token = os.environ.get("DOCSLICE_TOKEN")
    headers = {"Authorization": f"Bearer {token}"} if token else None
    http = create_mcp_http_client(headers=headers)  # with the SDK's timeouts for long-lived streams
    async with (
        http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = await session.list_tools()
        print("tools:", ", ".join(t.name for t in tools.tools))
        found = await session.call_tool("search_docs", {"query": question, "max_results": 3})
        print(text_of(found))
        # Each hit's second line starts with its url#section: the section that matched best.
        best = re.search(r"^\s+(\S+)#(\S+) · ", text_of(found), re.M)
        if found.is_error or best is None:
            return 1
        page, section = best.groups()
        read_it = await session.call_tool("get_doc_section", {"url": page, "section_id": section})
        print("\n" + text_of(read_it))
        return 1 if read_it.is_error else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} URL QUESTION")
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2])))
