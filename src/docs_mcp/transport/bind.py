"""Where `serve --http` may listen and with which token: checked before any heavy import (bad arguments are
refused at once)."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from docs_mcp import http_settings as H
from docs_mcp.errors import InvalidArgument
from docs_mcp.transport.door import Authority, allowed_names


@dataclass(frozen=True)
class Bind:
    """Where to listen, the token every request must carry (None: none asked, loopback only), and the host
    names requests may be addressed to besides the address itself (`--allowed-host`)."""

    host: str
    port: int
    token: str | None = None
    names: tuple[Authority, ...] = ()

    def url(self, port: int | None = None) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port if port is None else port}{H.HTTP_PATH}"


def parse_bind(text: str) -> tuple[str, int]:
    """`PORT`, `HOST:PORT` or `[IPv6]:PORT`; the host defaults to 127.0.0.1."""
    text = text.strip()
    if text.startswith("["):
        host, sep, port = text[1:].partition("]:")
        if not sep:
            raise InvalidArgument(
                f"--http {text!r}: write an IPv6 address as [ADDRESS]:PORT, e.g. [::1]:8000"
            )
    elif text.count(":") == 1:
        host, port = text.split(":")
    elif ":" not in text:
        host, port = H.HTTP_DEFAULT_HOST, text
    else:
        raise InvalidArgument(f"--http {text!r}: write an IPv6 address as [ADDRESS]:PORT, e.g. [::1]:8000")
    if not port.isdigit() or int(port) > 65535:
        raise InvalidArgument(f"--http {text!r}: the port must be a number from 0 to 65535")
    return host or H.HTTP_DEFAULT_HOST, int(port)


def is_loopback(host: str) -> bool:
    """Only this machine can connect: localhost, 127.0.0.0/8, ::1. A host name other than localhost is not."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(text: str, allow_remote: bool, token: str | None, allowed_hosts: tuple[str, ...] = ()) -> Bind:
    """Refuse what would expose the docs beyond this machine unless asked for, and then only with a token."""
    host, port = parse_bind(text)
    names = allowed_names(allowed_hosts)
    if token is not None and len(token) < H.HTTP_TOKEN_MIN_CHARS:
        raise InvalidArgument(
            f"the token has {len(token)} characters; use at least {H.HTTP_TOKEN_MIN_CHARS}, e.g. "
            "python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"
        )
    if not is_loopback(host):
        if not allow_remote:
            raise InvalidArgument(
                f"refusing to serve on {host}: only loopback addresses (127.0.0.1, ::1, localhost) are "
                "served unless you pass --allow-remote, with a bearer token (--token-file, --token or DOCSLICE_TOKEN)"
            )
        if not token:
            raise InvalidArgument(
                f"--allow-remote on {host} needs a bearer token: pass --token-file or set DOCSLICE_TOKEN "
                "(python3 -c 'import secrets; print(secrets.token_urlsafe(32))' makes one)"
            )
    return Bind(host, port, token or None, names)
