"""Documentation sources and the URL allow-list: every URL a tool or a redirect touches is checked here."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit, urlunsplit

from .config import LOCAL_SUFFIXES
from .errors import InvalidArgument, URLNotAllowed

_NAME_RE = re.compile(r"^([A-Za-z0-9_.-]+)=(.+)$")


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
        return str(self.path) if self.source.is_local else self.key

    @property
    def path(self) -> Path:
        """The file on disk (local sources only)."""
        return Path(self.source.root) / self.key


def parse_source(spec: str, index: int = 0) -> Source:
    """Parse `--source` values: `URL`, `DIR`, or `name=URL|DIR`."""
    spec = spec.strip()
    if not spec:
        raise InvalidArgument("empty --source")
    name = None
    m = _NAME_RE.match(spec)
    if m and not spec.lower().startswith(("http://", "https://")):
        name, spec = m.group(1), m.group(2)
    if spec.lower().startswith(("http://", "https://")):
        parts = urlsplit(spec)
        if not parts.netloc:
            raise InvalidArgument(f"--source {spec!r} has no host")
        path = parts.path or "/"
        last = path.rsplit("/", 1)[-1]
        # A root that names a page ("…/index.html") scopes to the page's directory.
        path = path.rsplit("/", 1)[0] + "/" if "." in last else path.rstrip("/") + "/"
        root = urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, "", ""))
        return Source(name or _default_name(parts.hostname or "", index), root, False)
    directory = Path(spec).expanduser().resolve()
    if not directory.is_dir():
        raise InvalidArgument(f"--source {spec!r} is neither an http(s) URL nor an existing directory")
    return Source(name or _clean_name(directory.name) or f"src{index}", str(directory), True)


def _climbs_out(relative: str) -> bool:
    """True when a relative path's ".." segments rise above its starting directory."""
    depth = 0
    for seg in relative.split("/"):
        if seg == "..":
            depth -= 1
            if depth < 0:
                return True
        elif seg not in ("", "."):
            depth += 1
    return False


def _default_name(host: str, index: int) -> str:
    """'www.postgresql.org' → 'postgresql'; an IP or localhost → 'docs' (or 'docsN' after the first)."""
    labels = [x for x in host.split(".") if x and x != "www"]
    if not labels or host.replace(".", "").isdigit() or host in ("localhost", "[::1]", "::1"):
        return "docs" if index == 0 else f"docs{index + 1}"
    return _clean_name(labels[-2] if len(labels) >= 2 else labels[0])


def _clean_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-").lower()


class SourceSet:
    """The configured roots, and the resolution of tool URLs against them."""

    def __init__(self, sources: list[Source]):
        # Two roots on one host get the same default name; suffix them so `source=` stays unambiguous.
        seen: dict[str, int] = {}
        unique = []
        for s in sources:
            n = seen.get(s.name, 0)
            seen[s.name] = n + 1
            unique.append(s if n == 0 else Source(f"{s.name}{n + 1}", s.root, s.is_local))
        self.sources: tuple[Source, ...] = tuple(unique)

    @classmethod
    def from_specs(cls, specs: list[str]) -> SourceSet:
        return cls([parse_source(s, i) for i, s in enumerate(specs)])

    def get(self, name: str) -> Source:
        for s in self.sources:
            if s.name == name:
                return s
        raise InvalidArgument(f"unknown source {name!r}; configured sources: {self.names()}")

    def names(self) -> str:
        return ", ".join(s.name for s in self.sources) or "(none)"

    def roots(self) -> str:
        return ", ".join(s.root for s in self.sources) or "(none configured)"

    def _refuse(self, url: str, why: str) -> URLNotAllowed:
        return URLNotAllowed(
            f"{url!r} is not allowed ({why}). Use an absolute URL under one of the configured roots "
            f"or a path relative to a local root: {self.roots()}"
        )

    def resolve(self, url: str) -> Location:
        """Map a tool's `url` argument to a Location, or refuse it naming the allowed roots."""
        url = (url or "").strip()
        if not url:
            raise InvalidArgument("url is empty: pass a page URL (from search_docs) or a path under a root")
        if not self.sources:
            raise self._refuse(url, "no sources are configured")
        scheme = urlsplit(url).scheme.lower()
        if scheme in ("http", "https"):
            return self._resolve_http(url)
        if scheme and len(scheme) > 1 and scheme != "file":
            named = self._resolve_named(url)
            if named:
                return named
            raise self._refuse(url, f"scheme {scheme!r}")
        if scheme == "file":
            return self._resolve_local_abs(unquote(urlsplit(url).path), url)
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
        for s in self.sources:
            if s.name == name:
                if s.is_local:
                    return self._local(s, rest, url)
                return self._resolve_http(urljoin(s.root, rest.lstrip("/")))
        return None

    def _resolve_http(self, url: str) -> Location:
        parts = urlsplit(url)
        path = unquote(parts.path or "/")
        norm = posixpath.normpath(path) if path not in ("", "/") else "/"
        if path.endswith("/") and not norm.endswith("/"):
            norm += "/"
        # A path with ".." is judged by where it lands (norm), never by its prefix.
        base = urlunsplit((parts.scheme.lower(), parts.netloc.lower(), norm, "", ""))
        for s in self.sources:
            if s.is_local:
                continue
            if base.startswith(s.root) or base + "/" == s.root:
                key = urlunsplit((parts.scheme.lower(), parts.netloc.lower(), norm, parts.query, ""))
                return Location(s, key, parts.fragment)
        raise self._refuse(url, "outside the configured roots")

    def _resolve_relative(self, url: str) -> Location:
        local = [s for s in self.sources if s.is_local]
        if not local:
            remote = self.sources[0]
            if _climbs_out(unquote(url.split("#", 1)[0].split("?", 1)[0])):
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
        rel = unquote(rel.split("?", 1)[0]).lstrip("/") or "index.html"
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

    def display_url(self, loc: Location) -> str:
        """How a page is named back to the agent: an absolute URL, or a relative path for local roots."""
        if not loc.source.is_local:
            return loc.key
        local = [s for s in self.sources if s.is_local]
        if len(local) == 1 and local[0] is loc.source:
            return loc.key
        return f"{loc.source.name}:{loc.key}"
