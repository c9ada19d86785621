"""Arguments checked before any work (no crawl, no heavy import first): the sources, and a tool command's
values against the tool's own ranges."""

from __future__ import annotations

import argparse

from docs_mcp.cli.commands import for_people
from docs_mcp.cli.grammar import SOURCELESS
from docs_mcp.cli.options import cli_dest
from docs_mcp.cli.project import default_versions, source_specs
from docs_mcp.errors import InvalidArgument
from docs_mcp.fetch.sources import SourceSet
from docs_mcp.tools.specs import TOOLS, tool_for

#: The commands that are a tool on the command line (`search` → search_docs).
_TOOL_COMMANDS = frozenset(t.command for t in TOOLS)


def check_before_work(args: argparse.Namespace) -> str:
    """Raise what the sources' specs refuse; return a tool argument's refusal in the command line's words
    ("" when all is well): `search x --max-results 0` is refused at once, not after crawling the source."""
    SourceSet.from_specs(
        source_specs(args, required=getattr(args, "command", None) not in SOURCELESS),
        missing_ok=args.command == "serve",
        defaults=default_versions(args),
    )
    if args.command not in _TOOL_COMMANDS:
        return ""
    spec = tool_for(args.command)
    try:
        spec.check({p.name: getattr(args, cli_dest(p)) for p in spec.params}, max(1000, args.max_chars))
    except InvalidArgument as exc:
        return for_people(str(exc))
    return ""
