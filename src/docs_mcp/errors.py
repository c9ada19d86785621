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


class IndexDamaged(IndexUnavailable):
    """The index file is not an intact SQLite index: it can be moved aside and rebuilt (it is a cache)."""
