"""Ask docslice from a Python script over stdio: the script starts the server as its child process.

    docslice index --source https://docs.python.org/3/      # once: the site index the searches use
    python stdio_client.py https://docs.python.org/3/ "pathlib glob recursive"

It searches the docs, then reads the passages of the best page that match the question: the cheapest
workflow an agent follows. Needs `docslice` on PATH (its `mcp` package is the client used here).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult


def text_of(result: CallToolResult) -> str:
    """What a model reads of a tool's answer: its structured content when it has some, else its text."""
    if result.structured_content is not None:
        return json.dumps(result.structured_content, indent=2, ensure_ascii=False)
    return "\n".join(block.text for block in result.content if block.type == "text")


async def main(source: str, question: str) -> int:
    server = StdioServerParameters(
        command="docslice",
        args=["serve", "--source", source],
        # A child process gets only a safe minimum of this environment: pass docslice's own settings on
        # (DOCSLICE_CACHE_DIR says where the index is; DOCS_MCP_…, their names before 0.5, still count).
        env={k: v for k, v in os.environ.items() if k.startswith(("DOCSLICE_", "DOCS_MCP_"))},
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        found = await session.call_tool("search_docs", {"query": question, "max_results": 3})
        print(text_of(found))
        # Each hit's second line starts with its url, ending in the #section that matched best.
        best = re.search(r"^\s+(\S+) · ", text_of(found), re.M)
        if found.is_error or best is None:
            return 1
        passages = await session.call_tool("search_in_doc", {"url": best.group(1), "query": question})
        print("\n" + text_of(passages))
        return 1 if passages.is_error else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} SOURCE QUESTION")
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2])))
