"""What round4.py's parts share: running a checkout's code, timing it, and raw requests to its server."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(HERE))  # costly_pages.py, round4_*.py

from hostile.front_door import Served, post  # noqa: E402


def uptime() -> str:
    """The load averages as `uptime` prints them (1, 5, 15 min), read from the kernel, not a process per figure."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def say(results: dict, key: str, value, text: str) -> None:
    results[key] = value
    print(f"{key}: {text}   [load {uptime()}]", flush=True)


def environ(src: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(src.resolve())}


def timed(argv: list[str], src: Path) -> tuple[float, float, float, str]:
    """`python -m docs_mcp ARGV` of `src`: (wall s, CPU s, peak RSS MB, stdout + stderr)."""
    with tempfile.TemporaryFile("w+") as out:
        start = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "docs_mcp", *argv], env=environ(src), stdout=out, stderr=out, text=True
        )
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except BaseException:
            proc.kill()
            raise
        proc.returncode = 0
        wall = time.monotonic() - start
        out.seek(0)
        said = out.read() + f"\n[exit {os.waitstatus_to_exitcode(status)}]"
        return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, said


def get(host: str, port: int, path: str, timeout: float = 30) -> tuple[int, float]:
    """GET `path` on a fresh connection: (status, seconds); status 0 when nothing came within `timeout`."""
    import socket

    start = time.monotonic()
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n\r\n".encode())
        try:
            head = s.recv(64)
        except TimeoutError:
            return 0, time.monotonic() - start
    found = re.match(rb"HTTP/1\.1 (\d+)", head)
    return int(found.group(1)) if found else 0, time.monotonic() - start


def held_open(host: str, port: int, wait: float = 10) -> bool:
    """Whether a stateless GET /mcp stream is still open, silent, after `wait` seconds."""
    import socket

    with socket.create_connection((host, port), timeout=wait) as s:
        s.sendall(f"GET /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n\r\n".encode())
        s.recv(4096)  # the status and headers
        try:
            s.recv(4096)  # more: an event or the stream's end
        except TimeoutError:
            return True
        return False


def tool_call(host: str, port: int, name: str, arguments: dict, **headers: str) -> tuple[int, str]:
    body = json.dumps(
        {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    )
    status, text, _ = post(host, port, body, timeout=120, **headers)
    return status, text


def session_headers(session: str) -> dict[str, str]:
    return {"mcp_session_id": session, "mcp_protocol_version": "2025-06-18"}


def readyz_text(served: Served) -> str:
    import http.client

    conn = http.client.HTTPConnection(served.host, served.port, timeout=60)
    try:
        conn.request("GET", "/readyz", headers={"Host": f"{served.host}:{served.port}"})
        res = conn.getresponse()
        return res.read().decode(errors="replace")
    finally:
        conn.close()


def drained(served: Served) -> str:
    import queue

    lines = []
    while True:
        try:
            lines.append(served.lines.get(timeout=0.5))
        except queue.Empty:
            return "".join(lines)


class LinkOrigin:
    """An HTTP origin on loopback whose every page under /d/ links to `links` pages no other page names."""

    def __init__(self, links: int):
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        count = links

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if not self.path.startswith("/d/"):
                    self.send_error(404)
                    return
                tag = abs(hash(self.path)) % 10**9
                body = (
                    "<html><head><title>P</title></head><body><h1>P</h1><p>Words.</p>"
                    + "".join(f'<a href="/d/{tag}-{j}.html">x</a>' for j in range(count))
                    + "</body></html>"
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        return f"http://127.0.0.1:{self.server.server_port}/d/"

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
