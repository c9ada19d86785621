"""Roots that hold: no encoded or backslashed form of ".." reaches outside an http root, and a local root
serves regular files only, answering every odd path with a clean error."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket

import pytest
from conftest import call, model_view

from docs_mcp.errors import URLNotAllowed
from docs_mcp.transport.server import build_server

from .conftest import hostile_tools, outside_root

pytestmark = pytest.mark.anyio

#: Ways to write "the parent of /docs/" that a path-normalising origin understands.
ESCAPES = [
    "docs/../secret.html",
    "docs/./../secret.html",
    "docs/%2e%2e/secret.html",
    "docs/%2E%2E/secret.html",
    "docs/.%2e/secret.html",
    "docs/%2e./secret.html",
    "docs/%252e%252e/secret.html",
    "docs/..%2fsecret.html",
    "docs/..%2Fsecret.html",
    "docs/..%5csecret.html",
    "docs/..\\secret.html",
    "docs/%2e%2e%2fsecret.html",
    "docs/%2e%2e%5csecret.html",
    "docs/..%252fsecret.html",
    "docs/a/..%2f..%2fsecret.html",
    "docs/%252e%252e%252fsecret.html",
]


@pytest.mark.parametrize("form", ESCAPES)
async def test_an_escape_from_an_http_root_is_refused_before_any_request(origin, form):
    tools = hostile_tools(origin.url + "docs/")
    try:
        with pytest.raises(URLNotAllowed):
            await tools.get_doc_toc(origin.url + form)
    finally:
        await tools.aclose()
    assert outside_root(origin) == []


@pytest.mark.parametrize(
    "form", ["%2e%2e/secret.html", "..%2fsecret.html", "..%5csecret.html", "..\\secret.html"]
)
async def test_a_relative_escape_from_an_http_root_is_refused(origin, form):
    tools = hostile_tools(origin.url + "docs/")
    try:
        with pytest.raises(URLNotAllowed):
            await tools.get_doc_toc(form)
    finally:
        await tools.aclose()
    assert outside_root(origin) == []


async def test_encoded_ordinary_characters_still_reach_their_page(origin):
    tools = hostile_tools(origin.url + "docs/")
    try:
        out = await tools.get_doc_toc(origin.url + "docs/%70age.html")  # %70 is "p"
    finally:
        await tools.aclose()
    assert out.startswith("# Tide tables")


# --- local roots -------------------------------------------------------------------------------
@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    (root / "page.html").write_text("<html><body><main><h1>Local page</h1><p>Text.</p></main></body></html>")
    return root


async def tool_error(root, url: str) -> str:
    res = await asyncio.wait_for(call(build_server(hostile_tools(str(root))), "get_doc_toc", url=url), 10)
    assert res.is_error
    text = model_view(res)
    assert "unexpected" not in text, text
    assert len(text) < 1_000, len(text)
    return text


async def test_a_fifo_named_like_a_page_is_refused_without_blocking(folder):
    fifo = folder / "x.html"
    os.mkfifo(fifo)
    try:
        text = await tool_error(folder, "x.html")
        assert "named pipe" in text
        tools = hostile_tools(str(folder))
        assert (await tools.get_doc_toc("page.html")).startswith("# Local page")
    finally:  # unblock a reader left waiting (a version that opens FIFOs blocking)
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


async def test_a_socket_named_like_a_page_is_refused(folder):
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(folder / "s.html"))
        await tool_error(folder, "s.html")


async def test_a_directory_named_like_a_page_is_refused(folder):
    (folder / "d.html").mkdir()
    assert "directory" in await tool_error(folder, "d.html")


async def test_a_symlink_loop_is_a_clean_error(folder):
    (folder / "loop.html").symlink_to(folder / "loop.html")
    assert "symlink loop" in await tool_error(folder, "loop.html")


async def test_a_name_too_long_is_a_clean_error(folder):
    assert "longer than the file system allows" in await tool_error(folder, "a" * 300 + ".html")


@pytest.mark.parametrize("url", ["x\x00.html", "%00.html", "a/%00/b.html"])
async def test_a_nul_in_a_local_path_is_a_clean_error(folder, url):
    await tool_error(folder, url)


async def test_a_symlink_to_a_device_is_outside_the_root(folder):
    (folder / "zero.html").symlink_to("/dev/zero")
    assert "not allowed" in await tool_error(folder, "zero.html")


async def test_local_errors_leave_the_server_serving(folder):
    server = build_server(hostile_tools(str(folder)))
    for url in ("a" * 300 + ".html", "x\x00.html", "../etc/passwd"):
        assert (await call(server, "get_doc_toc", url=url)).is_error
    res = await call(server, "get_doc_toc", url="page.html")
    assert not res.is_error and model_view(res).startswith("# Local page")
