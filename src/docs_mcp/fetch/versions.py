"""Versions of one site as one source: `NAME@VERSION` roots, a `{version}` URL pattern with a list, the
default (configured, else the newest) and the same page in another version."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

from docs_mcp.errors import InvalidArgument, echo

#: Between a source's name and its version (`django@4.2`): derived names never hold it.
SEP = "@"
#: Meta key (plus a root) of the name of a version's root (`quill@3.2`), for `docslice sources` without --source.
NAME_META = "version:"
#: Where a root pattern takes each version (`https://docs.example.org/en/{version}/`).
PLACEHOLDER = "{version}"
#: What a version may be written with (a path segment of a root, a name's tail).
_VERSION_RE = re.compile(r"^[A-Za-z0-9_.+-]{1,40}$")
#: `NAME@V1,V2=ROOT`: a pattern's versions given inline (the form a remembered source list holds).
_INLINE_RE = re.compile(r"^([A-Za-z0-9_.-]+)@([A-Za-z0-9_.+,-]+)=(.+)$")


def split_name(name: str) -> tuple[str, str]:
    """`django@4.2` → ('django', '4.2'); a name without a version → (name, '')."""
    family, _, version = name.partition(SEP)
    return family, version


def version_label(name: str) -> str:
    """How a hit names its source: `source django, version 4.2` (`source NAME` without a version)."""
    family, version = split_name(name)
    return f"source {family}, version {version}" if version else f"source {name}"


def version_key(version: str) -> tuple:
    """Orders versions oldest first: numerically where packaging reads them (3.10 after 3.9), releases above
    pre-releases, and any other word (`dev`, `latest`) below every number, by its digits then its text."""
    try:
        parsed = Version(version)
    except InvalidVersion:
        words = tuple(
            (0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.findall(r"\d+|[^\d]+", version)
        )
        return (0, words)
    return (2 if not parsed.is_prerelease else 1, parsed)


def _versions_list(text: str, where: str) -> list[str]:
    versions = [v.strip() for v in text.split(",") if v.strip()]
    bad = [v for v in versions if not _VERSION_RE.match(v)]
    if not versions or bad:
        raise InvalidArgument(
            f"{where}: versions are a comma-separated list like 3.2,4.2,5.0 (letters, digits, . _ + -), "
            f"got {echo(text, 60)}"
        )
    return versions


def expand_specs(specs: Sequence[str], versions: str | None = None) -> list[str]:
    """`--source` values with each `{version}` pattern made one `NAME@VERSION=ROOT` per version: its inline
    list (`NAME@3.2,4.2=…{version}…`), else `versions` (`--versions`); every other value as it is."""
    out: list[str] = []
    used = False
    for spec in specs:
        inline = _INLINE_RE.match(spec.strip())
        if PLACEHOLDER not in spec:
            out.append(spec)
            continue
        if inline:
            name, listed, pattern = inline.groups()
        else:
            name, sep, pattern = spec.strip().partition("=")
            if not sep or "/" in name or ":" in name:
                raise InvalidArgument(
                    f"--source {echo(spec, 80)} has {PLACEHOLDER} but no name: write NAME=…{PLACEHOLDER}…"
                )
            if not versions:
                raise InvalidArgument(
                    f"--source {echo(spec, 80)} has {PLACEHOLDER}: give its versions with --versions 3.2,4.2"
                )
            listed, used = versions, True
        out += [f"{name}{SEP}{v}={pattern.replace(PLACEHOLDER, v)}" for v in _versions_list(listed, name)]
    if versions and not used:
        raise InvalidArgument(f"--versions {echo(versions, 60)} is given but no --source holds {PLACEHOLDER}")
    return out


@dataclass(frozen=True)
class Family:
    """One source's versions, oldest first, and the one used when none is asked for."""

    name: str
    versions: tuple[str, ...]
    default: str

    def member(self, version: str) -> str:
        """The internal source name of `version`, or InvalidArgument naming the versions there are."""
        if version not in self.versions:
            raise InvalidArgument(
                f"source {self.name} has no version {echo(version, 40)}; it has {', '.join(self.versions)}"
            )
        return f"{self.name}{SEP}{version}"


def families(names: Iterable[str], defaults: Mapping[str, str] | None = None) -> dict[str, Family]:
    """The versioned sources among `names`, each with its default: the configured one, else the newest."""
    grouped: dict[str, list[str]] = {}
    plain = set()
    for name in names:
        family, version = split_name(name)
        if version:
            grouped.setdefault(family, []).append(version)
        else:
            plain.add(name)
    both = sorted(plain & set(grouped))
    if both:
        raise InvalidArgument(f"{', '.join(both)} names both a source and versions of one: rename one")
    out = {}
    for family, versions in grouped.items():
        ordered = tuple(sorted(versions, key=version_key))
        default = (defaults or {}).get(family) or ordered[-1]
        out[family] = Family(family, ordered, default)
        out[family].member(default)  # a configured default must be one of them
    unknown = sorted(set(defaults or {}) - set(out))
    if unknown:
        raise InvalidArgument(f"--default-version names {', '.join(unknown)}, which has no versions")
    return out


def parse_defaults(values: Iterable[str]) -> dict[str, str]:
    """`--default-version NAME@VERSION` values as {NAME: VERSION}."""
    out = {}
    for value in values:
        family, version = split_name(value.strip())
        if not family or not version:
            raise InvalidArgument(f"--default-version is NAME@VERSION (django@4.2), got {echo(value, 60)}")
        out[family] = version
    return out
