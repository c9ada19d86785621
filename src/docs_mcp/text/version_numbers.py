"""Version numbers in a query ("Django 1.8.2 release notes", "what's new in 3.11"): the tokenizer splits them into
one- and two-digit pieces that query_terms drops or finds everywhere, so a version is matched as written, in titles."""

from __future__ import annotations

import re

#: A version as written: two or more dot-separated numbers, maybe after a `v`, not inside a longer one (`3.2` is
#: not in `3.2.25`, nor in `10.3.2`).
VERSION = re.compile(r"(?<![\w.])[vV]?(\d+(?:\.\d+)+)(?!\w|\.\d)")
#: Versions a query keeps, at most (each costs one title lookup).
MAX_QUERY_VERSIONS = 2


def query_versions(query: str) -> list[str]:
    """The distinct versions a query writes, in order, at most MAX_QUERY_VERSIONS."""
    return list(dict.fromkeys(m.group(1) for m in VERSION.finditer(query)))[:MAX_QUERY_VERSIONS]


def holds_version(title: str, version: str) -> bool:
    """Whether a title writes this version as a whole (`1.8.2` in "Django 1.8.2 release notes", not `1.8.20`)."""
    return any(m.group(1) == version for m in VERSION.finditer(title))
