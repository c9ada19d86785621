"""A database address for messages: its password masked in every form libpq reads (URI userinfo, including a
password with an unencoded `@`; `?password=`; `password=` in key=value strings). PGPASSWORD and .pgpass are
never read here, so they are never shown. psycopg's own parser reads the address when psycopg is installed
(an extra); without it, or when it cannot parse the address, patterns mask the same forms."""

from __future__ import annotations

import re
from urllib.parse import unquote

MASK = "***"

#: `password=VALUE` in a key=value string or a URI's query: a quoted value (with its escapes) or a bare one.
_KEY_VALUE = re.compile(r"""(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'?|[^\s&#]*)""", re.I)
#: A URI's userinfo `user:password@`, up to the last `@` before the path (a password may hold an `@`).
_USERINFO = re.compile(r"^([a-z][a-z0-9+.-]*://[^:/?#@]*):[^/?#]*@", re.I)


def _parsed(url: str) -> dict[str, str] | None:
    try:
        from psycopg.conninfo import conninfo_to_dict
    except ImportError:
        return None
    try:
        return {k: str(v) for k, v in conninfo_to_dict(url).items()}
    except Exception:  # not an address psycopg reads: the patterns still mask what looks like a password
        return None


def redacted(url: str) -> str:
    """`url` for a message: as given when it holds no password, else with every password masked."""
    parsed = _parsed(url)
    if parsed is not None and "password" not in parsed and not _secrets(url):
        return url
    masked = _KEY_VALUE.sub(rf"\g<1>{MASK}", _USERINFO.sub(rf"\g<1>:{MASK}@", url))
    if "://" in url and not any(secret in masked for secret in _secrets(url)):
        return masked  # a URI stays the URI its user wrote, its password masked
    if parsed is not None:
        from psycopg.conninfo import make_conninfo

        if "password" in parsed:
            parsed["password"] = MASK
        if "@" in parsed.get(
            "host", ""
        ):  # libpq took the part of a password after its unencoded `@` as the host
            parsed["host"] = f"{MASK}@{parsed['host'].rsplit('@', 1)[1]}"
        return make_conninfo("", **parsed)
    return masked


def _secrets(url: str) -> set[str]:
    """Every spelling of the address's password a message may quote: as written, decoded, and the pieces an
    unencoded `@` splits it into (libpq reads the first piece as the password, the rest as the host)."""
    found = {m.group(2).strip("'") for m in _KEY_VALUE.finditer(url)}
    userinfo = _USERINFO.match(url)
    if userinfo:
        found.add(url[len(userinfo.group(1)) + 1 : userinfo.end() - 1])
    parsed = _parsed(url) or {}
    if parsed.get("password"):
        found.add(parsed["password"])
    pieces = {piece for secret in found for piece in secret.split("@")}
    spelled = found | pieces | {unquote(s) for s in found | pieces}
    return {s for s in spelled if len(s) > 1}


def scrubbed(message: str, url: str) -> str:
    """`message` (psycopg's or the server's own) with every spelling of `url`'s password masked."""
    for secret in sorted(_secrets(url), key=len, reverse=True):
        message = message.replace(secret, MASK)
    return message
