"""A scripted hostile origin and a canary, both on loopback, started and stopped by the tests.

The origin normalises paths like most real servers (percent-decoding until stable, backslashes as slashes,
dot segments resolved) and serves /secret.html outside the docs root, so a request that escapes the root is
seen for what it is. Each path under /docs/ has a behaviour: redirects anywhere, trickling bodies, gzip
bombs, stacked codings, huge headers, bad charsets, random bytes. The canary records every request it gets:
a test that lets anything reach it has let a request out of the roots.
"""

from __future__ import annotations

import gzip
import http.server
import posixpath
import random
import threading
import time
import zlib
from collections.abc import Callable
from functools import cache
from urllib.parse import unquote

ROOT = "/docs/"
#: Requests a source may make outside its root: robots.txt lives at the host root.
DISCOVERY_ABOVE_ROOT = frozenset({"/robots.txt"})


def page(title: str, body: str = "", links: tuple[str, ...] = ()) -> bytes:
    """A small documentation page."""
    anchors = "".join(f'<li><a href="{href}">{href}</a></li>' for href in links)
    text = body or f"<p>{title} explains tidal datums and chart references for harbour pilots.</p>"
    return (
        f"<html><head><title>{title}</title></head><body><main><h1>{title}</h1>{text}"
        f"<h2 id='details'>Details</h2><p>Details of {title}: datum offsets, gauge readings.</p>"
        f"<ul>{anchors}</ul></main></body></html>"
    ).encode()


@cache
def heavy_page(n: int = 1500, seed: int = 0) -> bytes:
    """A large ordinary page (many sections, lists): slow to parse, the way a big reference page is."""
    parts = [f"<html><head><title>Heavy {seed}</title></head><body><main>"]
    for i in range(n):
        parts.append(
            f"<h2 id='s{i}'>Section {seed}-{i}</h2><p>{'word ' * 60}</p><ul>{'<li>item</li>' * 20}</ul>"
        )
    parts.append("</main></body></html>")
    return "".join(parts).encode()


@cache
def gzip_bomb(megabytes: int) -> bytes:
    """`megabytes` MB of spaces, gzip-compressed (about 1,000:1), built without holding them in memory."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b" " * (1 << 20)
    out = [z.compress(block) for _ in range(megabytes)]
    out.append(z.flush())
    return b"".join(out)


class Recorder:
    """Every request a server saw: (raw path as sent, path as the server understood it)."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str]] = []
        self.lock = threading.Lock()

    def add(self, raw: str, normalised: str) -> None:
        with self.lock:
            self.requests.append((raw, normalised))

    def paths(self) -> list[str]:
        with self.lock:
            return [n for _, n in self.requests]

    def clear(self) -> None:
        with self.lock:
            self.requests.clear()


def normalise(raw_path: str) -> str:
    """The path a lenient origin serves: decoded until stable, backslashes as slashes, dot segments gone."""
    path = raw_path.split("?", 1)[0]
    for _ in range(3):
        decoded = unquote(path)
        if decoded == path:
            break
        path = decoded
    path = path.replace("\\", "/")
    norm = posixpath.normpath(path) if path not in ("", "/") else "/"
    return norm + "/" if path.endswith("/") and norm != "/" else norm


Behaviour = Callable[["Handler"], None]


class Handler(http.server.BaseHTTPRequestHandler):
    """Dispatches on the normalised path to the server's behaviours."""

    server: HostileServer
    protocol_version = "HTTP/1.0"

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        path = normalise(self.path)
        self.server.recorder.add(self.path, path)
        behaviour = self.server.routes.get(path) or self.server.routes.get("*")
        try:
            if behaviour is not None:
                behaviour(self)
            else:
                self.send_body(404, b"<html><body><h1>Not found</h1></body></html>")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a deadline, a size limit): expected

    # --- building blocks for behaviours ---
    def send_body(self, status: int, body: bytes, ctype: str = "text/html; charset=utf-8", **headers: str):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def redirect(self, location: str, status: int = 302) -> None:
        self.send_response(status)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()


class HostileServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128  # 32 clients at once must all be accepted, not wait in a backlog of 5

    def __init__(self, host: str, routes: dict[str, Behaviour]):
        super().__init__((host, 0), Handler)
        self.routes = routes
        self.recorder = Recorder()

    def handle_error(self, request, client_address) -> None:
        pass


class Server:
    """A HostileServer on its own thread; `url` is its origin with a trailing slash."""

    def __init__(self, host: str = "127.0.0.1", routes: dict[str, Behaviour] | None = None):
        self.httpd = HostileServer(host, routes or {})
        self.host = host
        self.port = self.httpd.server_address[1]
        self.url = f"http://{host}:{self.port}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    @property
    def routes(self) -> dict[str, Behaviour]:
        return self.httpd.routes

    @property
    def requests(self) -> list[str]:
        return self.httpd.recorder.paths()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def static(
    body: bytes, ctype: str = "text/html; charset=utf-8", status: int = 200, **headers: str
) -> Behaviour:
    return lambda h: h.send_body(status, body, ctype, **headers)


def redirect(location: str | Callable[[], str], status: int = 302) -> Behaviour:
    return lambda h: h.redirect(location() if callable(location) else location, status)


def trickle(seconds: float = 20.0, interval: float = 0.1) -> Behaviour:
    """Headers at once, then one byte every `interval` s: each read succeeds, the page never ends."""

    def run(h: Handler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/html; charset=utf-8")
        h.end_headers()
        h.wfile.write(b"<html><body><main><h1>Trickle</h1><p>")
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            h.wfile.write(b"x")
            h.wfile.flush()
            time.sleep(interval)

    return run


def coded(body: bytes, coding: str, ctype: str = "text/html; charset=utf-8") -> Behaviour:
    """`body` sent as is, declared with Content-Encoding `coding`."""
    return lambda h: h.send_body(200, body, ctype, Content_Encoding=coding)


def huge_header(size: int = 100_000) -> Behaviour:
    def run(h: Handler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        h.send_header("X-Filler", "a" * size)
        h.end_headers()
        h.wfile.write(page("Huge header"))

    return run


def random_bytes(n: int = 50_000, seed: int = 13) -> bytes:
    return random.Random(seed).randbytes(n)


def double_gzip(body: bytes) -> bytes:
    return gzip.compress(gzip.compress(body))


def docs_site(origin: str, canary: str, alt_canary: str) -> dict[str, Behaviour]:
    """The routes of the hostile docs site: a few ordinary pages under /docs/, a secret outside, and one path
    per misbehaviour. `origin`, `canary` and `alt_canary` are base URLs ending in "/"."""
    routes: dict[str, Behaviour] = {
        "/docs/": static(page("Index", links=("page.html", "guide/intro.html"))),
        "/docs/index.html": static(page("Index", links=("page.html", "guide/intro.html"))),
        "/docs/page.html": static(page("Tide tables")),
        "/docs/guide/intro.html": static(page("Introduction")),
        "/secret.html": static(page("SECRET outside the root")),
        "/docs/redirect-port.html": redirect(canary + "docs/page.html"),
        "/docs/redirect-host.html": redirect(alt_canary + "docs/page.html"),
        "/docs/redirect-file.html": redirect("file:///etc/passwd"),
        "/docs/redirect-loop.html": redirect("/docs/redirect-loop.html"),
        "/docs/redirect-escape.html": redirect("/docs/%2e%2e/secret.html"),
        "/docs/redirect-backslash.html": redirect("/docs/..\\secret.html"),
        "/docs/redirect-inside.html": redirect("/docs/page.html", 301),
        "/docs/trickle.html": trickle(),
        "/docs/slow-headers.html": lambda h: (time.sleep(20), h.send_body(200, page("late"))),
        "/docs/bomb.html": coded(gzip_bomb(100), "gzip"),
        "/docs/gzip-gzip.html": coded(double_gzip(page("Twice")), "gzip, gzip"),
        "/docs/gzip-gzip-bomb.html": coded(gzip.compress(gzip_bomb(100)), "gzip, gzip"),
        "/docs/brotli.html": coded(b"\x8b\x02\x80hello\x03", "br"),
        "/docs/unknown-coding.html": coded(page("x"), "x-evil"),
        "/docs/corrupt-gzip.html": coded(b"\x1f\x8b\x08\x00garbage-not-deflate", "gzip"),
        "/docs/big-header.html": huge_header(60_000),
        "/docs/huge-header.html": huge_header(1_000_000),
        "/docs/random.html": static(random_bytes()),
        "/docs/nul.html": static(
            b"<html><body><main><h1>N\x00UL</h1><p>a\x00b\x01c</p></main></body></html>"
        ),
        "/docs/not-html.pdf": static(b"%PDF-1.4", "application/pdf"),
    }
    for charset in ("undefined", "idna", "rot13", "base64", "zlib_codec", "punycode", "utf-7", "nonsense"):
        routes[f"/docs/charset-{charset}.html"] = static(
            page("Charset " + charset).replace(b"tidal", b"tid\xe9l"), f"text/html; charset={charset}"
        )
    return routes
