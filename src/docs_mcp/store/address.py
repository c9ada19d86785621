"""A database address for messages: its password masked in every form libpq reads (URI userinfo, including a
password with an unencoded `@`; `?password=`; `password=` in key=value strings). PGPASSWORD and .pgpass are
never read here, so they are never shown. psycopg's own parser (conninfo_to_dict) tells which password the
address holds when psycopg is installed (an extra); patterns mask it in the form given, and an address they
would not clear is written back by psycopg's make_conninfo without it."""

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
    """`url` for a message, in the form it was given (URI or key=value), every password in it masked."""
    secrets = _secrets(url)
    if not secrets:
        return url
    shown = _KEY_VALUE.sub(rf"\g<1>{MASK}", _USERINFO.sub(rf"\g<1>:{MASK}@", url))
    if not any(secret in shown for secret in secrets):
        return shown
    parsed = _parsed(url)  # a form the patterns missed: psycopg's reading, written back without the password
    if parsed is None:
        return "(an address holding a password, not shown)"
    from psycopg.conninfo import make_conninfo

    parsed["password"] = MASK
    if "@" in parsed.get("host", ""):  # libpq took the part of a password after its unencoded `@` as the host
        parsed["host"] = f"{MASK}@{parsed['host'].rsplit('@', 1)[1]}"
    return make_conninfo("", **parsed)


def _secrets(url: str) -> set[str]:
    """Every spelling of the address's password a message may quote: as written and decoded, and the pieces
    after an unencoded `@` in it with that `@` (libpq reads them as the start of the host name, and quotes
    that: "failed to resolve host 'ss@db'"); a piece alone would mask it inside every word that holds it."""
    found = {m.group(2).strip("'") for m in _KEY_VALUE.finditer(url)}
    userinfo = _USERINFO.match(url)
    if userinfo:
        found.add(url[len(userinfo.group(1)) + 1 : userinfo.end() - 1])
    parsed = _parsed(url) or {}
    if parsed.get("password"):
        found.add(parsed["password"])
    spelled = {s for secret in found for s in (secret, unquote(secret)) if len(s) > 1}
    hosts = {f"{piece}@" for secret in spelled for piece in secret.split("@")[1:] if piece}
    return spelled | hosts


def scrubbed(message: str, url: str) -> str:
    """`message` (psycopg's or the server's own) with every spelling of `url`'s password masked."""
    for secret in sorted(_secrets(url), key=len, reverse=True):
        message = message.replace(secret, f"{MASK}@" if secret.endswith("@") else MASK)
    return message
