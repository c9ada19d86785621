"""A database address as messages show it: read by libpq's own parser (psycopg's conninfo_to_dict), then
written back from what it read with every secret masked, in the form it was given (URI or key=value). What
libpq does not read is never shown; PGPASSWORD and a passfile's contents are never read here.

An address libpq cannot read, or reads otherwise than it was written (a `/` or `@` left unencoded in a URI's
password puts the rest of it in the host, port or database name, where it would be shown), is refused in
one line that quotes none of it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote

from psycopg import ProgrammingError
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from docs_mcp.errors import IndexUnavailable

MASK = "***"
#: Options whose value is a secret: masked where the address is shown, and wherever a message quotes it.
SECRET_KEYS = frozenset({"password", "sslpassword"})
_SCHEMES = ("postgresql://", "postgres://")
#: A quoted piece of libpq's reason for refusing an address: it may be part of the password.
_QUOTED = re.compile(r'"[^"]*"')
_WHICH = "its address (--index-url or DOCS_MCP_INDEX_URL)"
_FIX = (
    "write it as postgresql://USER:PASSWORD@HOST:PORT/DBNAME with '%', '/' and '@' in the password "
    "percent-encoded (%25, %2F, %40), or as key=value pairs (host=… password='…')"
)


@dataclass(frozen=True)
class Address:
    """A PostgreSQL address: `shown` for messages, `secrets` (as libpq read them) to scrub from messages."""

    shown: str
    secrets: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> Address:
        """`text` as libpq reads it; IndexUnavailable (naming none of it) when it cannot be read as written."""
        try:
            options = {k: str(v) for k, v in conninfo_to_dict(text).items()}
        except ProgrammingError as exc:
            reason = _QUOTED.sub(_unquoted, (str(exc).strip().splitlines() or ["unreadable"])[0])
            raise IndexUnavailable(
                f"cannot use the index: {_WHICH} is not one PostgreSQL reads ({reason}); {_FIX}"
            ) from None
        uri = text.lstrip().lower().startswith(_SCHEMES)
        if uri and _stray_at(text.lstrip()):
            raise IndexUnavailable(
                f"cannot use the index: {_WHICH} has an '@' that PostgreSQL would not read as the end of its "
                f"user and password (a '/' or '@' in the password, unencoded); {_FIX}"
            )
        secrets = tuple(sorted({options[k] for k in SECRET_KEYS if len(options.get(k, "")) > 1}, key=len))
        shown = {k: (MASK if k in SECRET_KEYS else v) for k, v in options.items()}
        return cls(_as_uri(text.lstrip(), shown) if uri else make_conninfo("", **shown), secrets[::-1])

    def scrub(self, message: str) -> str:
        """`message` (psycopg's or the server's) with every secret of the address masked, longest first."""
        for secret in self.secrets:
            message = message.replace(secret, MASK)
        return message


def _unquoted(found: re.Match[str]) -> str:
    """A quoted piece of libpq's reason: kept when it is one character (`"="`), else left out."""
    return found.group() if len(found.group()) <= 3 else '"…"'


def _stray_at(uri: str) -> bool:
    """Whether an `@` stands where libpq does not end a user and password with it: after the first one (or
    after a `/`), outside a password option's value. libpq ends the userinfo at the first `@` unless a `/`
    comes first; any other `@` is most often a password's `/` or `@` left unencoded."""
    rest = uri.split("://", 1)[1]
    at, slash = rest.find("@"), rest.find("/")
    if at != -1 and (slash == -1 or at < slash):
        rest = rest[at + 1 :]
    path, _, query = rest.partition("?")
    if "@" in path:
        return True
    pairs = (pair.partition("=") for pair in query.split("&"))
    return any("@" in value for key, _, value in pairs if key not in SECRET_KEYS)


def _as_uri(given: str, options: dict[str, str]) -> str:
    """`options` (secrets already masked) as a URI with `given`'s scheme; a host that is a socket folder or an
    option without a URI place goes in the query, as libpq reads it."""
    options = dict(options)
    scheme = given[: given.index("://") + 3]
    userinfo = ""
    if "user" in options:
        userinfo = quote(options.pop("user"), safe="") + (
            f":{options.pop('password')}" if "password" in options else ""
        )
    hosts, ports = options.get("host", "").split(","), options.get("port", "").split(",")
    netloc = ""
    if all(hosts) and not any("/" in h for h in hosts) and len(ports) in (1, len(hosts)):
        ports = ports * len(hosts) if len(ports) == 1 else ports
        netloc = ",".join(_host_port(h, p) for h, p in zip(hosts, ports, strict=True))
        options.pop("host"), options.pop("port", None)
    dbname = options.pop("dbname", None)
    path = "/" + quote(dbname, safe="") if dbname else ""
    query = "&".join(f"{k}={v if v == MASK else quote(v, safe='/')}" for k, v in options.items())
    return f"{scheme}{userinfo + '@' if userinfo else ''}{netloc}{path}{'?' + query if query else ''}"


def _host_port(host: str, port: str) -> str:
    host = f"[{host}]" if ":" in host else quote(host, safe=".-_~")
    return f"{host}:{port}" if port else host
