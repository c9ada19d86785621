"""`docslice audit`: how findable each source's pages are by their own words, and what ranks above them."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from docs_mcp.audit.report import as_data, as_markdown
from docs_mcp.audit.run import audit_source
from docs_mcp.cli.app import App, answer_for_terminal, say
from docs_mcp.errors import DocsMCPError
from docs_mcp.store.address import redacted


async def run_audit(app: App, args: Any, prepare) -> int:
    """Index empty sources first, then audit each source in a thread; the report (or --json) on stdout."""
    try:
        await prepare(app)
        if app.search is None:
            raise DocsMCPError(f"the audit needs the site index: {app.index_notice}")
        reports = []
        for source in app.sources.sources:
            audit = await asyncio.to_thread(audit_source, app.search, source, max(1, args.pages))
            reports.append(as_data(audit, redacted(source.root)))
            say(f"audited {source.name}: {len(audit.sampled):,} pages in {audit.seconds:.0f} s")
    finally:
        await app.tools.aclose()
    if args.json:
        sys.stdout.write(
            json.dumps(reports if len(reports) > 1 else reports[0], indent=1, ensure_ascii=False)
        )
        sys.stdout.write("\n")
    else:
        sys.stdout.write(answer_for_terminal("\n".join(as_markdown(r) for r in reports)))
    return 0
