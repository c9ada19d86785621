"""Documentation sources and the URL allow-list: every URL a tool or a redirect touches is checked here."""

from __future__ import annotations

import errno
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from docs_mcp.errors import DocsMCPError, InvalidArgument, URLNotAllowed, echo
from docs_mcp.fetch.names import default_name, explicit_name, folder_name
from docs_mcp.fetch.urls import HttpURL, UnsafeURL, climbs_out, decode_name, encode_name, parse_http
from docs_mcp.fetch.versions import families
from docs_mcp.settings import LOCAL_SUFFIXES, MAX_URL_CHARS


@dataclass(frozen=True)
class Source:
    """A documentation root: an http(s) URL prefix or a local directory."""

    name: str
    root: str  # URL prefix ending in "/", or an absolute directory path
    is_local: bool


@dataclass(frozen=True)
class Location:
    """A resolved page: the fetchable key (no fragment), its source, and the fragment asked for."""

    source: Source
    key: str  # canonical page URL, or the path relative to a local root
    fragment: str = ""

    @property
    def uid(self) -> str:
        """Unique across sources (the index's key): the URL, or the absolute path of a local file."""
        return encode_name(str(self.path)) if self.source.is_local else self.key

    @property
    def path(self) -> Path:
        """The file on disk (local sources only)."""
        return Path(self.source.root) / self.key


def parse_source(spec: str, missing_ok: bool = False) -> Source:
    """Parse `--source` values: `URL`, `DIR`, or `name=URL|DIR`; with `missing_ok`, a folder that does not
    exist (yet) is a source too (a server keeps serving the others, and its answers name it)."""
    spec = spec.strip()
    if not spec:
        raise InvalidArgument("empty --source")
    name = explicit_name(spec)
    if name:
        spec = spec.split("=", 1)[1]
    if spec.lower().startswith(("http://", "https://")):
        if not urlsplit(spec).netloc:
            raise InvalidArgument(f"--source {spec!r} has no host")
        try:
            url = parse_http(spec)
        except UnsafeURL as exc:
            raise InvalidArgument(f"--source {spec!r} cannot be a root: {exc}") from None
        path = url.path
        last = path.rsplit("/", 1)[-1]
        # A root that names a page ("…/index.html") scopes to the page's directory.
        path = path.rsplit("/", 1)[0] + "/" if "." in last else path.rstrip("/") + "/"
        root = HttpURL(url.scheme, url.host, url.port, path).key
        return Source(name or default_name(root), root, False)
    directory = Path(spec).expanduser().resolve()
    # A mistyped address (`ftp://…`, `host:8000/docs`) is never a folder to wait for.
    looks_like_url = "://" in spec or spec.split("/", 1)[0].count(":") == 1
    if not directory.is_dir() and not (missing_ok and not directory.exists() and not looks_like_url):
        raise InvalidArgument(f"--source {spec!r} is neither an http(s) URL nor an existing directory")
    return Source(name or folder_name(directory), str(directory), True)


def missing_folder(source: Source) -> bool:
    """A local source whose folder does not exist (a server started with it serves the others)."""
    return source.is_local and not Path(source.root).is_dir()


def _unique_names(sources: list[Source], explicit: frozenset[int]) -> list[Source]:
    """Names given with NAME= are kept (twice the same is an error); derived ones that clash get -2, -3…"""
    given = [s.name for i, s in enumerate(sources) if i in explicit]
    twice = sorted({n for n in given if given.count(n) > 1})
    if twice:
        raise InvalidArgument(f"two --source values are named {', '.join(twice)}: give each its own NAME=")
    taken = set(given)
    out = []
    for i, s in enumerate(sources):
        if i not in explicit:
            name, n = s.name, 2
            while name in taken:
                name, n = f"{s.name}-{n}", n + 1
            taken.add(name)
            s = replace(s, name=name) if name != s.name else s
        out.append(s)
    return out


class SourceSet:
    """The configured roots, and the resolution of tool URLs against them."""

    def __init__(
        self,
        sources: list[Source],
        explicit: frozenset[int] = frozenset(),
        defaults: Mapping[str, str] | None = None,
    ):
        # Two roots can derive the same name; suffix them so `source=` stays unambiguous.
        self.sources: tuple[Source, ...] = tuple(_unique_names(sources, explicit))
        #: The sources given as versions of one (`NAME@VERSION=…`), by NAME, each with its default version.
        self.families = families((s.name for s in self.sources), defaults)

    @classmethod
    def from_specs(
        cls, specs: list[str], missing_ok: bool = False, defaults: Mapping[str, str] | None = None
    ) -> SourceSet:
        explicit = frozenset(i for i, s in enumerate(specs) if explicit_name(s))
        return cls([parse_source(s, missing_ok) for s in specs], explicit, defaults)

    def get(self, name: str) -> Source:
        for s in self.sources:
            if s.name == name:
                return s
        raise InvalidArgument(f"unknown source {echo(name, 60)}; configured sources: {self.names()}")

    def names(self) -> str:
        return ", ".join(s.name for s in self.sources) or "(none)"

    def roots(self) -> str:
        return ", ".join(s.root for s in self.sources) or "(none configured)"

    def _refuse(self, url: str, why: str) -> URLNotAllowed:
        return URLNotAllowed(
            f"{echo(url)} is not allowed ({why}). Use an absolute URL under one of the configured roots "
            f"or a path relative to a local root: {self.roots()}"
        )

    def resolve(self, url: str) -> Location:
        """Map a tool's `url` argument to a Location, or refuse it naming the allowed roots."""
        url = (url or "").strip()
        if not url:
            raise InvalidArgument("url is empty: pass a page URL (from search_docs) or a path under a root")
        _check_address(url)
        if not self.sources:
            raise self._refuse(url, "no sources are configured")
        try:
            return self._resolve(url)
        except DocsMCPError:
            raise
        except (OSError, RuntimeError, ValueError) as exc:  # the file system's word on a local path
            raise InvalidArgument(
                f"{echo(url)} cannot be read: {_os_reason(exc)}; pass a page path under a root"
            ) from None

    def _resolve(self, url: str) -> Location:
        try:
            scheme = urlsplit(url).scheme.lower()
        except ValueError as exc:  # "Invalid IPv6 URL"
            raise self._refuse(url, f"an unreadable address: {exc}") from None
        if scheme in ("http", "https"):
            return self._resolve_http(url)
        if scheme and len(scheme) > 1 and scheme != "file":
            named = self._resolve_named(url)
            if named:
                return named
            raise self._refuse(url, f"scheme {echo(scheme, 40)}")
        if scheme == "file":
            return self._resolve_local_abs(decode_name(urlsplit(url).path), url)
        named = self._resolve_named(url)
        if named:
            return named
        if Path(url).is_absolute():
            return self._resolve_local_abs(url, url)
        return self._resolve_relative(url)

    def _resolve_named(self, url: str) -> Location | None:
        name, sep, rest = url.partition(":")
        if not sep:
            return None
        if name in self.families:  # `django:page.html`: the page of django's default version
            name = self.families[name].member(self.families[name].default)
        for s in self.sources:
            if s.name == name:
                if s.is_local:
                    return self._local(s, rest, url)
                return self._resolve_http(urljoin(s.root, rest.lstrip("/")))
        return None

    def _resolve_http(self, url: str) -> Location:
        try:
            # The canonical form is what is checked and what is sent: a path with ".." is judged by where
            # it lands, and escapes an origin would decode into a climb out of the root are refused.
            parsed = parse_http(url)
        except UnsafeURL as exc:
            raise self._refuse(url, str(exc)) from None
        if len(parsed.key) > 3 * MAX_URL_CHARS:  # escaped non-ASCII grows up to 9 times
            raise self._refuse(url, f"over {3 * MAX_URL_CHARS:,} chars once percent-encoded")
        for s in self.sources:
            if not s.is_local and parsed.under(parse_http(s.root)):
                return Location(s, parsed.key, parsed.fragment)
        raise self._refuse(url, "outside the configured roots")

    def _resolve_relative(self, url: str) -> Location:
        local = [s for s in self.sources if s.is_local]
        if not local:
            remote = self.sources[0]
            if climbs_out(unquote(url.split("#", 1)[0].split("?", 1)[0])):
                # urljoin would silently clamp "../.." at the root; an attempt to climb out is refused.
                raise self._refuse(url, "the path escapes the root")
            return self._resolve_http(urljoin(remote.root, url))
        last: URLNotAllowed | None = None
        for s in local:
            try:
                loc = self._local(s, url, url)
            except URLNotAllowed as exc:
                last = exc
                continue
            if loc.path.exists() or s is local[-1]:
                return loc
        raise last or self._refuse(url, "not found under any local root")

    def _resolve_local_abs(self, path: str, original: str) -> Location:
        target = Path(path.split("#", 1)[0]).resolve()
        for s in self.sources:
            if s.is_local and target.is_relative_to(Path(s.root)):
                return self._local(s, str(target.relative_to(s.root)), original)
        raise self._refuse(original, "outside the configured roots")

    def _local(self, source: Source, rel: str, original: str) -> Location:
        rel, _, fragment = rel.partition("#")
        rel = decode_name(rel.split("?", 1)[0]).lstrip("/") or "index.html"
        root = Path(source.root)
        target = (root / rel).resolve()  # resolves symlinks too, so a link out of the root is caught
        if not target.is_relative_to(root):
            raise self._refuse(original, "the path escapes the local root")
        if target.is_dir():
            for candidate in ("index.html", "index.htm", "index.md", "README.md"):
                if (target / candidate).is_file():
                    target = target / candidate
                    break
        if target.suffix.lower() not in LOCAL_SUFFIXES:
            raise self._refuse(original, f"only {', '.join(LOCAL_SUFFIXES)} files are served")
        return Location(source, target.relative_to(root).as_posix(), fragment)

    def check_redirect(self, url: str) -> Location:
        """Every redirect hop must stay under a root too."""
        return self._resolve_http(url)

    def discovery_url(self, url: str, source: Source) -> str:
        """`url` canonical if it is on `source`'s own origin (robots.txt, sitemaps, llms.txt and their
        redirects), else URLNotAllowed: a discovery file may sit above the root, never on another origin."""
        try:
            parsed = parse_http(url)
            same = not source.is_local and parsed.origin == parse_http(source.root).origin
        except UnsafeURL as exc:
            raise self._refuse(url, str(exc)) from None
        if not same:
            raise self._refuse(url, f"not on the origin of {source.root}")
        return parsed.key

    def display_url(self, loc: Location) -> str:
        """How a page is named back to the agent: an absolute URL, or a relative path for local roots."""
        if not loc.source.is_local:
            return loc.key
        local = [s for s in self.sources if s.is_local]
        if len(local) == 1 and local[0] is loc.source:
            return encode_name(loc.key)
        return f"{loc.source.name}:{encode_name(loc.key)}"


def _check_address(url: str) -> None:
    """Refuse addresses no page can have, before any parsing: too long, control characters, bad Unicode."""
    if len(url) > MAX_URL_CHARS:
        raise InvalidArgument(
            f"url is {len(url):,} chars, over the {MAX_URL_CHARS:,}-char limit: {echo(url, 60)}; "
            "pass a page URL from search_docs or get_doc_toc"
        )
    bad = next((i for i, c in enumerate(url) if c < " " or c == "\x7f" or "\ud800" <= c <= "\udfff"), None)
    if bad is not None:
        what = "an unpaired surrogate (not valid Unicode)" if url[bad] >= "\ud800" else "a control character"
        raise InvalidArgument(
            f"url holds {what}, {url[bad]!r} at position {bad}: {echo(url, 60)}; pass the address as plain text"
        )


def _os_reason(exc: BaseException) -> str:
    """What the file system said, in words an agent can act on."""
    code = getattr(exc, "errno", None)
    if code == errno.ENAMETOOLONG:
        return "a name longer than the file system allows"
    if code == errno.ELOOP or "symlink loop" in str(exc).lower():
        return "a symlink loop"
    if isinstance(exc, ValueError) and "null" in str(exc).lower():
        return "a NUL character"
    if isinstance(exc, UnicodeError):
        return "text that is not valid Unicode"
    return getattr(exc, "strerror", None) or f"{exc.__class__.__name__}: {str(exc)[:100]}"
