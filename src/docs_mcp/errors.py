"""One error hierarchy; every message tells the agent what to do next (mapped to ToolError at the edge)."""

from __future__ import annotations


class DocsMCPError(Exception):
    """Base class: the message is shown to the agent as is."""


class InvalidArgument(DocsMCPError):
    """An argument is empty or out of its domain."""


class URLNotAllowed(DocsMCPError):
    """The URL is not under a configured source root."""


class FetchError(DocsMCPError):
    """The page could not be fetched (network, HTTP status, timeout)."""


class PageNotFound(FetchError):
    """404/410, or a missing local file."""


class PageTooLarge(FetchError):
    """The body exceeds the size limit."""


class RetryLater(FetchError):
    """429/503: the site asks us to slow down; `retry_after` is its wish in seconds (0 if unsaid)."""

    def __init__(self, message: str, retry_after: float = 0.0):
        super().__init__(message)
        self.retry_after = retry_after


class NotDocumentation(FetchError):
    """The response is not HTML or Markdown."""


class SectionNotFound(DocsMCPError):
    """No section has that id or heading."""


class IndexVersionError(DocsMCPError):
    """The index file was written by a newer docs-mcp, whose layout this version cannot read."""


class IndexUnavailable(DocsMCPError):
    """The site index cannot be used: an unwritable cache dir, a lock never released, a damaged file."""


class DiskFull(IndexUnavailable):
    """The disk under the index is full: writes fail, what was indexed before stays."""


class IndexDamaged(IndexUnavailable):
    """The index file is not an intact SQLite index: it can be moved aside and rebuilt (it is a cache)."""


class StreamDamaged(IndexDamaged):
    """A page's stored stream (its texts, links and document) cannot be read back as it was written."""


class DeadlineExceeded(FetchError):
    """The total deadline of a request or tool call passed before it finished (the work was cancelled)."""


class ParseError(FetchError):
    """The page was fetched but could not be converted (a parser failure on hostile or broken input)."""


#: Characters of an argument echoed back in a message: enough to recognise it, never the whole of a 1 MB input.
ECHO_CHARS = 120


def echo(value: object, limit: int = ECHO_CHARS) -> str:
    """`value` quoted for a message, cut to `limit` chars with its full length said; ASCII-safe (repr escapes)."""
    text = value if isinstance(value, str) else str(value)
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text):,} chars)"
