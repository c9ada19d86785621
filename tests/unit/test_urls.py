"""urls: the canonical form that is both checked against a root and sent to the origin."""

from __future__ import annotations

import pytest

from docs_mcp.fetch.urls import UnsafeURL, clean_path, parse_http, without_password


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/docs/a/../b.html", "/docs/b.html"),
        ("/docs/./b.html", "/docs/b.html"),
        ("/docs/", "/docs/"),
        ("", "/"),
        ("/docs/a/..", "/docs/"),
        ("/docs//b.html", "/docs/b.html"),
        ("/docs/%7euser/%41.html", "/docs/~user/A.html"),  # unreserved escapes are decoded
        ("/docs/a%20b.html", "/docs/a%20b.html"),
        ("/docs/a b.html", "/docs/a%20b.html"),
        ("/docs/é.html", "/docs/%C3%A9.html"),
        ("/docs/%c3%a9.html", "/docs/%C3%A9.html"),
        ("/docs/a%2ehtml", "/docs/a.html"),  # an encoded dot inside a name is just a dot
    ],
)
def test_clean_path_is_what_the_origin_will_see(path, expected):
    assert clean_path(path) == expected


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("/docs/%2e%2e/x", "dot segment"),
        ("/docs/.%2E/x", "dot segment"),
        ("/docs/%2e/x", "dot segment"),
        ("/docs/%252e%252e/x", "double encoding"),
        ("/docs/..%2fx", "encoded slash"),
        ("/docs/..%5cx", "encoded backslash"),
        ("/docs/..\\x", "backslash"),
        ("/docs/a%3fb", "question mark"),
        ("/docs/a%23b", "hash"),
        ("/docs/a%00b", "control character"),
        ("/docs/a%0d%0ab", "control character"),
        ("/docs/a\nb", "control character"),
        ("/docs/100%.html", "malformed"),
        ("/docs/%zz.html", "malformed"),
        ("/docs/\ud800.html", "surrogate"),
    ],
)
def test_clean_path_refuses_what_an_origin_would_decode_into_another_path(path, why):
    with pytest.raises(UnsafeURL, match=why):
        clean_path(path)


def test_parse_http_drops_the_default_port_and_lowercases():
    url = parse_http("HTTP://Example.ORG:80/Docs/x.html?q=1#frag")
    assert (url.key, url.fragment, url.origin) == (
        "http://example.org/Docs/x.html?q=1",
        "frag",
        ("http", "example.org", 80),
    )


def test_parse_http_keeps_an_explicit_port_and_ipv6():
    assert parse_http("http://127.0.0.1:8000/a").netloc == "127.0.0.1:8000"
    assert parse_http("http://[::1]:8000/a").key == "http://[::1]:8000/a"


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.org/x",
        "http://user:pw@example.org/x",
        "http://[::1/x",
        "http://example.org:99999/x",
        "http://example.org:abc/x",
        "http://exa mple.org/x",
        "http:///x",
    ],
)
def test_parse_http_refuses_other_schemes_credentials_and_bad_hosts(url):
    with pytest.raises(UnsafeURL):
        parse_http(url)


def test_under_compares_origin_and_path_at_a_segment_boundary():
    root = parse_http("http://h:8000/docs/")
    assert parse_http("http://h:8000/docs/a.html").under(root)
    assert parse_http("http://h:8000/docs").under(root)
    assert not parse_http("http://h:8000/docs-x/a.html").under(root)
    assert not parse_http("http://h:8001/docs/a.html").under(root)
    assert not parse_http("https://h:8000/docs/a.html").under(root)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://docs:Qzv7-Kw9x@docs.example/guide/", "https://docs:***@docs.example/guide/"),
        ("https://docs:Qzv7@Kw9x@[::1]:8443/x?q=a@b", "https://docs:***@[::1]:8443/x?q=a@b"),
        ("https://docs@docs.example/a@b", "https://docs@docs.example/a@b"),
        ("/home/docs/site", "/home/docs/site"),
    ],
)
def test_a_urls_password_is_masked_for_messages(url, shown):
    assert without_password(url) == shown
