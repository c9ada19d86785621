"""Attacks on `serve --http`, from this machine to itself: a server in a subprocess, raw sockets against it.

Shared by tests/hostile/test_front_door.py and benchmarks/reliability/front_door.py. Every target is a loopback
address, every loop stops by itself (a count or a deadline).
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import re
import resource
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

INIT = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "hostile", "version": "1"},
        },
    }
)
MCP_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def limit_files(soft: int, hard: int | None = None) -> Callable[[], None]:
    """A preexec_fn: the child starts with `soft` open files at most (and `hard`: by default the same, so it
    cannot raise it)."""
    return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard or soft))


class Served:
    """`python -m docs_mcp serve --http BIND …` in a subprocess; host and port read from the line it prints."""

    def __init__(
        self, bind: str, *args: str, files: tuple[int, int] | None = None, env: dict[str, str] | None = None
    ):
        environ = {k: v for k, v in os.environ.items() if k != "DOCS_MCP_TOKEN"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "docs_mcp", "serve", "--http", bind, "--no-index", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**environ, **(env or {})},
            preexec_fn=limit_files(*files) if files else None,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._drain, daemon=True).start()  # a full stderr pipe would block it
        self.before: list[str] = []  # what it said before serving (warnings)
        try:
            self.announcement = self._announcement(time.monotonic() + 60)
        except BaseException:
            self.stop()  # never leave a server behind a failed start
            raise
        found = re.search(r"http://(\[[^\]]+\]|[^:/]+):(\d+)/mcp", self.announcement)
        assert found, self.announcement
        self.host, self.port = found.group(1).strip("[]"), int(found.group(2))
        self.url = found.group(0)

    def _announcement(self, deadline: float) -> str:
        """The line saying where it serves; what came before is kept; an exit or a minute's silence raises."""
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.5)
            except queue.Empty:
                if self.proc.poll() is not None and self.lines.empty():
                    said = "".join(self.before)[-500:]
                    raise RuntimeError(f"the server exited ({self.proc.returncode}): {said}") from None
                continue
            if "serving MCP" in line:
                return line
            self.before.append(line)
        raise TimeoutError("the server did not say where it serves within a minute")

    def _drain(self) -> None:
        for line in self.proc.stderr:
            self.lines.put(line)

    def stderr(self) -> list[str]:
        """Every line it printed besides the announcement, those already returned excepted."""
        out, self.before = self.before, []
        while not self.lines.empty():
            out.append(self.lines.get())
        return out

    def stderr_until(self, text: str, timeout: float = 10.0) -> str:
        """Every line printed so far, waiting up to `timeout` s for one holding `text` (a loaded machine
        writes the server's log line after the client has its answer)."""
        said, deadline = "".join(self.stderr()), time.monotonic() + timeout
        while text not in said and time.monotonic() < deadline:
            time.sleep(0.1)
            said += "".join(self.stderr())
        return said

    def open_files_limit(self) -> tuple[int, int]:
        """Its open-file limit now, soft and hard."""
        limits = Path(f"/proc/{self.proc.pid}/limits").read_text()
        soft, hard = re.search(r"Max open files\s+(\d+)\s+(\d+)", limits).groups()
        return int(soft), int(hard)

    def rss_mb(self) -> float:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        return int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


def post(
    host: str, port: int, body: str = INIT, timeout: float = 30.0, method: str = "POST", **headers: str
) -> tuple[int, str, dict[str, str]]:
    """One request to /mcp on a fresh connection: (status, body, headers). Header names: `_` for `-`."""
    extra = {k.replace("_", "-"): v for k, v in headers.items()}
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        conn.putrequest(method, "/mcp", skip_host="Host" in extra)
        for name, value in {**MCP_HEADERS, **extra, "content-length": str(len(body))}.items():
            conn.putheader(name, value)
        conn.endheaders(body.encode())
        res = conn.getresponse()
        return res.status, res.read().decode(), {k.lower(): v for k, v in res.getheaders()}
    finally:
        conn.close()


def time_to_serve(host: str, port: int, timeout: float = 60.0) -> float:
    """Seconds a new client takes to connect and open a session (initialize answered 200)."""
    start = time.monotonic()
    status, body, _ = post(host, port, timeout=timeout)
    assert status == 200 and '"result"' in body, (status, body[:300])
    return time.monotonic() - start


class Stallers:
    """`count` connections that send their headers one byte a second and never finish them; one closed by the
    server is opened again. Runs on its own thread until stop() or `seconds`, whichever comes first."""

    LINE = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "

    def __init__(self, host: str, port: int, count: int, seconds: float = 120.0):
        self.address = (host, port)
        self.count = count
        self.deadline = time.monotonic() + seconds
        self.socks: list[socket.socket] = []
        self.opened = self.reopened = self.refused = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def first(self) -> bytes:
        """What a connection sends at once: the start of its headers."""
        return self.LINE[:20]

    def _connect(self) -> socket.socket | None:
        try:
            s = socket.create_connection(self.address, timeout=2.0)
            s.setblocking(False)
            s.send(self.first())
            self.opened += 1
            return s
        except OSError:
            self.refused += 1
            return None

    def _run(self) -> None:
        while len(self.socks) < self.count and self._going():
            s = self._connect()
            if s is not None:
                self.socks.append(s)
        while self._going():
            for i, s in enumerate(self.socks):
                try:
                    s.send(b"a")  # a header value growing a byte at a time: the headers never end
                except OSError:  # closed by the server: open another in its place
                    s.close()
                    fresh = self._connect()
                    self.reopened += fresh is not None
                    self.socks[i] = fresh or s
            self.stopping.wait(1.0)

    def _going(self) -> bool:
        return not self.stopping.is_set() and time.monotonic() < self.deadline

    @property
    def ready(self) -> bool:
        return len(self.socks) >= self.count

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=30)
        for s in self.socks:
            s.close()


class SlowBodies(Stallers):
    """Stallers that send complete headers at once, then their body a byte a second (slowloris on bodies)."""

    def first(self) -> bytes:
        host, port = self.address
        headers = [
            "POST /mcp HTTP/1.1",
            f"Host: {host}:{port}",
            "Content-Type: application/json",
            "Accept: application/json, text/event-stream",
            "Content-Length: 100000",
        ]
        return ("\r\n".join(headers) + "\r\n\r\n{").encode()


def abandon_sessions(host: str, port: int, count: int, threads: int = 4) -> dict[int, int]:
    """Open `count` sessions (initialize, answered) and never close them; returns {status: responses}."""
    statuses: dict[int, int] = {}
    lock = threading.Lock()

    def work(n: int) -> None:
        conn = http.client.HTTPConnection(host, port, timeout=60)
        try:
            for _ in range(n):
                conn.request("POST", "/mcp", INIT, MCP_HEADERS)
                res = conn.getresponse()
                res.read()
                with lock:
                    statuses[res.status] = statuses.get(res.status, 0) + 1
        finally:
            conn.close()

    workers = [threading.Thread(target=work, args=(count // threads,)) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return statuses


def raise_own_file_limit(needed: int) -> bool:
    """Let this process hold `needed` sockets; False if its hard limit does not allow it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= needed:
        return True
    if hard != resource.RLIM_INFINITY and hard < needed:
        return False
    resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
    return True


class InThread:
    """An ASGI app served by uvicorn on its own thread, on a socket already listening (stop() ends it)."""

    def __init__(self, app, sock: socket.socket):
        import uvicorn

        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        self.host, self.port = sock.getsockname()[:2]
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        assert self.server.started

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


def session_request(host: str, port: int, session: str, method: str = "tools/list") -> int:
    """One JSON-RPC request on an open session; its HTTP status (404: the session has ended)."""
    body = json.dumps({"jsonrpc": "2.0", "id": 2, "method": method, "params": {}})
    return post(host, port, body, mcp_session_id=session, mcp_protocol_version="2025-06-18")[0]


def open_session(host: str, port: int) -> str:
    """initialize, then notifications/initialized: a session ready for calls; its id."""
    status, body, headers = post(host, port)
    assert status == 200, (status, body[:300])
    session = headers["mcp-session-id"]
    note = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert post(host, port, note, mcp_session_id=session, mcp_protocol_version="2025-06-18")[0] == 202
    return session


def hold_stream(host: str, port: int, session: str) -> socket.socket:
    """The session's GET event stream, kept open (a request in flight on it) until the socket is closed."""
    s = socket.create_connection((host, port), timeout=10)
    s.sendall(
        f"GET /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n"
        f"mcp-session-id: {session}\r\nmcp-protocol-version: 2025-06-18\r\n\r\n".encode()
    )
    assert s.recv(64).startswith(b"HTTP/1.1 200"), "the event stream was not opened"
    return s
