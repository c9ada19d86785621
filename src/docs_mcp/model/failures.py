"""Why a fetch failed, in a few plain words: a name that does not resolve, a refused connection, a timeout."""

from __future__ import annotations

import socket

import httpx

#: A site that never answers, in plain words with what to check (the host is in the address said before).
DNS_FAILED = "DNS lookup failed: the host name does not resolve (check it for a typo)"
REFUSED = "connection refused: nothing answers at that address (is the docs server running, on that port?)"
#: Why a source whose root answers 404 has no page, and what to check.
ROOT_NOT_FOUND = (
    "404 at the root: the address answers HTTP 404 (not found); check it (a docs root ends with /)"
)
#: The causes that no retry, and no other file of the same host, will change: said once, not tried again.
UNREACHABLE = (DNS_FAILED, REFUSED)


def failure(exc: BaseException) -> tuple[str, str, bool]:
    """A failed fetch, read from the exception and its causes: the cause in a few words, its technical
    detail, and whether the site never answered (no HTTP response at all)."""
    chain: list[BaseException] = []
    e: BaseException | None = exc
    while e is not None and e not in chain:
        chain.append(e)
        e = e.__cause__ or e.__context__
    http = next((e for e in chain if isinstance(e, httpx.HTTPError)), None)
    detail = f"{type(http).__name__}: {http}" if http is not None and str(http) else str(exc)
    unanswered = any(isinstance(e, (httpx.TransportError, ConnectionError, socket.gaierror)) for e in chain)
    text = " ".join(str(e) for e in chain).lower()
    if any(isinstance(e, socket.gaierror) for e in chain) or any(s in text for s in _DNS_FAILURES):
        return DNS_FAILED, detail, True
    if any(isinstance(e, ConnectionRefusedError) for e in chain) or "connection refused" in text:
        return REFUSED, detail, True
    if any(isinstance(e, httpx.TimeoutException) for e in chain) or "timed out" in text:
        return "timed out", detail, True
    return "", detail, unanswered


_DNS_FAILURES = (
    "dns lookup failed",  # our own words (a FetchError worded by the fetcher)
    "name or service not known",
    "nodename nor servname",
    "temporary failure in name resolution",
    "no address associated",
    "getaddrinfo failed",
)
