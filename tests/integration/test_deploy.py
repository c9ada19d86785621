"""The deployment files in deploy/ are real and consistent: the compose file wires the image that
deploy/Dockerfile builds from the checkout (no install from a package index when a container starts), the
replicas' health check is /readyz, nginx balances over the replicas' port; and the image's Python layer
builds with the Dockerfile's own commands (deploy/build-venv.sh), so the files cannot rot unnoticed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
ENV = {**os.environ, "PG_PASSWORD": "pw-for-the-test", "DOCSLICE_TOKEN": "t" * 24}


def _compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def _has_compose() -> bool:
    if shutil.which("docker") is None:
        return False
    done = subprocess.run(["docker", "compose", "version"], capture_output=True, timeout=30)
    return done.returncode == 0


def test_the_compose_file_runs_the_image_built_from_the_checkout_and_nothing_from_an_index():
    compose = _compose()
    services = compose["services"]
    assert set(services) == {"postgres", "migrate", "crawl", "docs", "nginx"}
    assert services["migrate"]["command"] == ["migrate"]  # the only one that changes the schema, first
    for name in ("crawl", "docs"):
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    for name in ("migrate", "crawl", "docs"):
        service = services[name]
        assert service["build"] == {"context": "..", "dockerfile": "deploy/Dockerfile"}, name
        assert service["image"] == services["docs"]["image"], name
        assert service["depends_on"]["postgres"]["condition"] == "service_healthy", name
        assert "DOCSLICE_INDEX_URL" in service["environment"], name
    assert services["crawl"]["entrypoint"] == ["docslice-crawl"]
    assert (
        services["docs"]["command"][:2] == ["serve", "--http"]
        and "--stateless" in services["docs"]["command"]
    )
    assert "pip" not in (DEPLOY / "compose.yaml").read_text()  # nothing installed when a container starts


def test_nginx_balances_over_the_replicas_port_with_tls_and_passes_the_host_they_allow():
    compose = _compose()
    docs = compose["services"]["docs"]["command"]
    port = docs[docs.index("--http") + 1].rsplit(":", 1)[1]
    mounts = dict(v.split(":")[:2] for v in compose["services"]["nginx"]["volumes"])
    assert mounts == {
        "./nginx.conf": "/etc/nginx/conf.d/default.conf",
        "./nginx-upstream-compose.conf": "/etc/nginx/conf.d/upstream.conf",
        "./tls": "/etc/nginx/tls",
    }
    upstream = (DEPLOY / "nginx-upstream-compose.conf").read_text()
    assert re.search(rf"upstream docslice \{{\s*server docs:{port}\b", upstream)
    conf = (DEPLOY / "nginx.conf").read_text()
    assert "proxy_pass http://docslice;" in conf and "listen 443 ssl;" in conf
    assert re.search(r"listen 80;\s*return 308 https://", conf)  # port 80 only redirects
    # nginx passes on the name the client asked for; the replicas allow the public name.
    assert "proxy_set_header Host $host;" in conf
    assert docs[docs.index("--allowed-host") + 1] == "${DOCS_PUBLIC_NAME:-localhost}"
    assert compose["services"]["nginx"]["ports"] == ["443:443", "80:80"]


def test_the_image_is_multi_stage_unprivileged_and_checks_readyz():
    text = (DEPLOY / "Dockerfile").read_text()
    assert len(re.findall(r"^FROM ", text, re.M)) >= 2
    assert "RUN sh deploy/build-venv.sh /opt/docslice" in text and "COPY src ./src" in text
    user = re.findall(r"^USER (\S+)", text, re.M)
    assert user and user[-1] not in ("root", "0")
    healthcheck = re.search(r"^HEALTHCHECK .*\n.*", text, re.M)
    assert healthcheck and "/readyz" in healthcheck.group(0) and "--timeout=3s" in healthcheck.group(0)
    port = _compose()["services"]["docs"]["command"][2].rsplit(":", 1)[1]
    assert f"127.0.0.1:{port}/readyz" in text and f"EXPOSE {port}" in text
    for copied in re.findall(r"^COPY (?!--from)(\S+)", text, re.M):
        assert (DEPLOY.parent / copied).exists(), copied


@pytest.mark.skipif(not _has_compose(), reason="the docker CLI has no compose plugin here")
def test_docker_compose_accepts_the_file():
    done = subprocess.run(
        ["docker", "compose", "-f", str(DEPLOY / "compose.yaml"), "config", "--quiet"],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


def test_the_crawl_loop_retries_a_failed_run_with_backoff_then_keeps_its_schedule(tmp_path):
    calls = tmp_path / "calls"
    fake = tmp_path / "docslice"
    # A docslice that fails twice, then succeeds; the loop's sleeps are recorded instead of slept.
    fake.write_text(f'#!/bin/sh\necho run >> {calls}\n[ "$(grep -c run {calls})" -gt 2 ]\n')
    sleep = tmp_path / "sleep"
    sleep.write_text(
        f'#!/bin/sh\necho "sleep $1" >> {calls}\n[ "$(grep -c sleep {calls})" -lt 4 ] || kill $PPID\n'
    )
    for f in (fake, sleep):
        f.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{tmp_path}:{os.environ['PATH']}",
        "CRAWL_EVERY": "500",
        "CRAWL_RETRY_MAX": "45",
    }
    subprocess.run(["sh", str(DEPLOY / "crawl-loop.sh")], env=env, timeout=30, capture_output=True)
    assert calls.read_text().split("\n")[:7] == [
        "run",
        "sleep 30",
        "run",
        "sleep 45",
        "run",
        "sleep 500",
        "run",
    ]


@pytest.mark.slow
@pytest.mark.long  # a venv installed from PyPI: `pytest -m long` (and CI) runs it, the README's pytest does not
@pytest.mark.timeout(900)
def test_the_images_python_layer_builds_with_the_dockerfiles_commands(tmp_path):
    target = tmp_path / "venv"
    done = subprocess.run(
        ["sh", str(DEPLOY / "build-venv.sh"), str(target)],
        cwd=DEPLOY.parent,
        capture_output=True,
        text=True,
        timeout=880,
        env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"},
    )
    if done.returncode != 0 and "ensurepip" in done.stderr:
        pytest.skip("this Python cannot make a virtual environment with pip (no ensurepip)")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "semantic model: wordllama" in done.stdout and "docslice " in done.stdout
