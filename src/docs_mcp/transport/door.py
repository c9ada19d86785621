"""The HTTP front door: every request's Host and Origin name this server exactly, or it is refused.

A browser page on `rebind.example` whose name resolves to a loopback address sends `Host: rebind.example:PORT`
(DNS rebinding), and any page sends its own `Origin`; neither names this server, so neither is served. An
IP literal cannot be rebound, so a server listening on every address (0.0.0.0, ::) takes any IP literal.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from docs_mcp.errors import InvalidArgument

ASGIApp = Callable[..., Any]
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

#: `host[:port]` as a Host header or an Origin spells it: a bracketed IPv6 address or a name/IPv4, nothing else.
_AUTHORITY = re.compile(r"(\[[0-9A-Za-z:.%]+\]|[^\s:\[\]/@?#]+)(?::(\d{1,5}))?")
_ORIGIN = re.compile(r"(https?)://(.+)")
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class Authority:
    """A host (lowercase name, or an IP address) and a port (None: any)."""

    host: str | IPAddress
    port: int | None

    @classmethod
    def parse(cls, text: str, default_port: int | None) -> Authority | None:
        """`name`, `name:port`, `1.2.3.4:port`, `[::1]:port`; None if it is anything else."""
        found = _AUTHORITY.fullmatch(text)
        if not found or (found.group(2) and int(found.group(2)) > 65535):
            return None
        name, port = found.group(1), found.group(2)
        try:
            host: str | IPAddress = ipaddress.ip_address(name.strip("[]"))
        except ValueError:
            if name.startswith("["):
                return None
            host = name.lower()
        return cls(host, int(port) if port else default_port)


@dataclass(frozen=True)
class Door:
    """Who a request may say it is for: this server's address and port (and localhost's, on loopback), any IP
    literal on a wildcard bind, and the `--allowed-host` names (a name alone: any port, http or https)."""

    addresses: tuple[IPAddress, ...]
    port: int
    names: tuple[Authority, ...] = ()
    any_address: bool = False

    def _ours(self, authority: Authority, scheme: str = "http") -> bool:
        host, port = authority.host, authority.port
        for name in self.names:
            if host == name.host and (name.port is None or port == name.port):
                return True
        if scheme != "http" or port != self.port:
            return False
        if isinstance(host, str):
            return host == "localhost" and any(a.is_loopback for a in self.addresses)
        return host in self.addresses or self.any_address

    def refusal(self, host: str | None, origin: str | None) -> tuple[int, str] | None:
        """(status, one-line reason) when the request is not for this server; None when it is."""
        if host is None:
            return 421, f"refused: no Host header (expected {self.expected()})"
        parsed = Authority.parse(host, 80)
        if parsed is None or not self._ours(parsed):
            return 421, f"refused: Host {host[:100]!r} is not this server (expected {self.expected()})"
        if origin is None:
            return None  # not a browser, or a same-origin GET: nothing cross-site to stop
        scheme, authority = _split_origin(origin)
        parsed = Authority.parse(authority, _DEFAULT_PORTS.get(scheme)) if scheme else None
        if parsed is None or not self._ours(parsed, scheme):
            return (
                403,
                f"refused: Origin {origin[:100]!r} is not this server (expected {self.expected('http://')})",
            )
        return None

    def expected(self, scheme: str = "") -> str:
        """What a request may name, for a refusal's reason: the address itself only on loopback without
        --allowed-host (the client is on this machine); behind a proxy (names given) or beyond loopback, the
        refusal reaches whoever asked and names no address or port of the network inside."""
        if self.names or not self.addresses or not all(a.is_loopback for a in self.addresses):
            return "this server's own address and port, or a name given with --allowed-host"
        shown = [*(f"[{a}]" if a.version == 6 else str(a) for a in self.addresses), "localhost"]
        return " or ".join([*(f"{scheme}{h}:{self.port}" for h in shown), "a name given with --allowed-host"])


def _split_origin(origin: str) -> tuple[str | None, str]:
    found = _ORIGIN.fullmatch(origin.strip())
    return (found.group(1), found.group(2)) if found else (None, "")


def allowed_names(texts: Iterable[str]) -> tuple[Authority, ...]:
    """`--allowed-host NAME[:PORT]` values, checked now so a typo is refused before serving."""
    names = []
    for text in texts:
        parsed = Authority.parse(text.strip(), None)
        if parsed is None or not text.strip():
            raise InvalidArgument(
                f"--allowed-host {text!r}: write a host name as clients send it, e.g. docs.example.com "
                "or docs.example.com:8443 (no scheme, no path)"
            )
        names.append(parsed)
    return tuple(names)


def door_for(bound: str, port: int, names: tuple[Authority, ...]) -> Door:
    """The door of a socket listening on `bound` (its address as the socket reports it) and `port`."""
    address = ipaddress.ip_address(bound.split("%")[0])
    wildcard = address.is_unspecified
    return Door(() if wildcard else (address,), port, names, any_address=wildcard)


def _headers(scope: dict[str, Any], name: bytes) -> list[str]:
    return [v.decode("latin-1") for k, v in scope.get("headers", ()) if k == name]


def refusal_of(door: Door, scope: dict[str, Any]) -> tuple[int, str] | None:
    """(status, reason) when a request is refused at the door: not for this server, or a header given twice."""
    hosts, origins = _headers(scope, b"host"), _headers(scope, b"origin")
    # Two of one: which one counts depends on who reads them (a proxy, the SDK, the token check), so none does.
    for name in ("Host", "Origin", "Authorization"):
        if len(_headers(scope, name.lower().encode())) > 1:
            return 400, f"refused: more than one {name} header"
    return door.refusal(hosts[0] if hosts else None, origins[0] if origins else None)


async def reply(send: Callable, status: int, body: dict[str, Any], *headers: tuple[bytes, bytes]) -> None:
    """A complete JSON response on one line."""
    data = json.dumps(body).encode()
    start = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": [*start, *headers]})
    await send({"type": "http.response.body", "body": data})


def rpc_error(message: str) -> dict[str, Any]:
    """A JSON-RPC error without a request id: MCP clients show its message as the call's error."""
    return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}


class FrontDoor:
    """ASGI middleware: a request whose Host or Origin is not this server gets 421 or 403 and a reason."""

    def __init__(self, app: ASGIApp, door: Door):
        self.app = app
        self.door = door

    async def __call__(self, scope: dict[str, Any], receive: Callable, send: Callable) -> None:
        if scope["type"] in ("http", "websocket"):
            refused = refusal_of(self.door, scope)
            if refused is not None:
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                    return
                await reply(send, refused[0], rpc_error(refused[1]))
                return
        await self.app(scope, receive, send)
