"""Page addresses in one canonical form, which is both what is checked against a root and what is sent.

An origin decodes a path once and normalises it (dot segments, often backslashes), so a path is checked as the
origin will see it: escapes that would decode to a separator, a backslash, a percent sign (double encoding) or
a dot segment are refused rather than decoded, and nothing decoded is ever sent for the origin to re-read.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from urllib.parse import quote, unquote, urlsplit, urlunsplit

from docs_mcp.text.controls import percent_encoded

DEFAULT_PORTS = {"http": 80, "https": 443}
_UNRESERVED = frozenset(string.ascii_letters + string.digits + "-._~")
#: Characters a path or query keeps as they are (RFC 3986 pchar, plus "%" for the escapes already checked).
_PATH_SAFE = "/:@!$&'()*+,;=-._~%"
_QUERY_SAFE = _PATH_SAFE + "?"
#: Escapes whose decoded character would change the path an origin sees.
_FORBIDDEN_ESCAPES = {
    "2F": "an encoded slash (%2F)",
    "5C": "an encoded backslash (%5C)",
    "25": "an encoded percent sign (%25, a double encoding)",
    "3F": "an encoded question mark (%3F)",
    "23": "an encoded hash (%23)",
}
_ESCAPE = re.compile(r"%(.{0,2})", re.S)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_HOST = re.compile(r"^(?:[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?|\[[0-9a-f:.]+\])$")


class UnsafeURL(ValueError):
    """An address that cannot be checked or sent as it stands; the message says why, for the agent."""


@dataclass(frozen=True)
class HttpURL:
    """An http(s) address, canonical: lowercase scheme and host, default port dropped, path cleaned."""

    scheme: str
    host: str  # lowercase; an IPv6 literal keeps its brackets
    port: int
    path: str
    query: str = ""
    fragment: str = ""

    @property
    def origin(self) -> tuple[str, str, int]:
        return (self.scheme, self.host, self.port)

    @property
    def netloc(self) -> str:
        return self.host if self.port == DEFAULT_PORTS[self.scheme] else f"{self.host}:{self.port}"

    @property
    def key(self) -> str:
        """The address without its fragment: what is fetched, cached and indexed."""
        return urlunsplit((self.scheme, self.netloc, self.path, self.query, ""))

    def under(self, root: HttpURL) -> bool:
        """Whether this address is `root` or below it (same origin, path prefix at a segment boundary)."""
        if self.origin != root.origin:
            return False
        return self.path.startswith(root.path) or self.path + "/" == root.path


def parse_http(url: str) -> HttpURL:
    """The canonical form of an absolute http(s) URL; UnsafeURL says what is wrong with it."""
    if _CONTROL.search(url.strip()):
        raise UnsafeURL("a control character in the address")
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:  # "Invalid IPv6 URL", "Port out of range"
        raise UnsafeURL(f"an unreadable host or port ({exc})") from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise UnsafeURL(f"scheme {scheme or '(none)'!r}, only http and https are fetched")
    if "@" in parts.netloc:
        raise UnsafeURL("credentials in the address")
    host = (parts.netloc.rsplit(":", 1)[0] if port is not None else parts.netloc).lower()
    if parts.netloc.endswith(":"):  # "host:" names no port; the default one is meant
        host = parts.netloc[:-1].lower()
    if not _HOST.match(host):
        raise UnsafeURL("an invalid host name")
    return HttpURL(
        scheme,
        host,
        DEFAULT_PORTS[scheme] if port is None else port,
        clean_path(parts.path),
        _clean_query(parts.query),
        parts.fragment,
    )


def clean_path(path: str) -> str:
    """A path as it will be sent: dot segments resolved, unreserved escapes decoded, the rest escaped.

    Refused (UnsafeURL): backslashes, control characters, malformed escapes, escapes of "/", "\\", "%", "?"
    and "#", and dot segments written with escapes ("%2e%2e", ".%2E"). These are what path-normalising
    origins turn into a climb out of a root after the root was checked.
    """
    if "\\" in path:
        raise UnsafeURL("a backslash in the path (servers read it as /)")
    if _CONTROL.search(path):
        raise UnsafeURL("a control character in the path")
    trailing = path.endswith("/") or path.rsplit("/", 1)[-1] in (".", "..")
    out: list[str] = []
    for raw in path.split("/"):
        seg = _ESCAPE.sub(_unescape, raw)
        if seg in (".", "..") and raw not in (".", ".."):
            raise UnsafeURL("a dot segment written with escapes (%2e)")
        if seg == "..":
            if out:
                out.pop()
        elif seg not in ("", "."):
            try:
                out.append(quote(seg, safe=_PATH_SAFE))
            except UnicodeEncodeError:
                raise UnsafeURL("an unpaired surrogate, not valid Unicode") from None
    cleaned = "/" + "/".join(out)
    return cleaned + "/" if trailing and out else cleaned


def _unescape(m: re.Match[str]) -> str:
    hexa = m.group(1)
    if len(hexa) != 2 or not all(c in string.hexdigits for c in hexa):
        raise UnsafeURL("a malformed percent-escape (% not followed by two hex digits)")
    hexa = hexa.upper()
    if hexa in _FORBIDDEN_ESCAPES:
        raise UnsafeURL(_FORBIDDEN_ESCAPES[hexa])
    char = chr(int(hexa, 16))
    if ord(char) < 0x20 or char == "\x7f":
        raise UnsafeURL(f"an encoded control character (%{hexa})")
    return char if char in _UNRESERVED else "%" + hexa


def _clean_query(query: str) -> str:
    try:
        return quote(query, safe=_QUERY_SAFE)
    except UnicodeEncodeError:
        raise UnsafeURL("an unpaired surrogate, not valid Unicode") from None


def encode_name(name: str) -> str:
    """A file name or path as data (see text.controls): unsafe characters and `%` percent-encoded."""
    return percent_encoded(name)


def decode_name(name: str) -> str:
    """The file name `encode_name` (or an agent) encoded: escapes back to the OS's bytes, exactly."""
    return unquote(name, errors="surrogateescape")


def without_password(url: str) -> str:
    """`url` for a message: a password in its userinfo (`https://user:PW@host/`) shown as ***, as urlsplit reads it."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
    except ValueError:  # not a URL urlsplit reads (an unclosed IPv6 bracket): nothing after an '@' is shown
        return url if "@" not in url else "(an address holding credentials, not shown)"
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))


def climbs_out(relative: str) -> bool:
    """True when a relative path's ".." segments rise above its starting directory."""
    depth = 0
    for seg in relative.split("/"):
        if seg == "..":
            depth -= 1
            if depth < 0:
                return True
        elif seg not in ("", "."):
            depth += 1
    return False
