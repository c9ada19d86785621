"""refresh: where a page that only sends the reader on (<meta http-equiv="refresh">) leads."""

from __future__ import annotations

import pytest

from docs_mcp.fetch.refresh import refresh_target


@pytest.mark.parametrize(
    ("head", "target"),
    [
        (
            '<meta http-equiv="Refresh" content="0; url=Shell-Grammar.html#Aliasing">',
            "Shell-Grammar.html#Aliasing",
        ),
        ("<meta content=\"5;URL='guide/next.html'\" http-equiv=refresh>", "guide/next.html"),
        ('<meta http-equiv="refresh" content="30">', None),  # a page that reloads itself goes nowhere
        ('<meta name="description" content="how to refresh a gauge">', None),
    ],
)
def test_refresh_target_reads_the_meta_refresh_of_the_head(head, target):
    page = f"<html><head><title>t</title><style>{'p {margin: 0} ' * 300}</style>{head}</head><body>x</body></html>"
    assert refresh_target(page) == target
