"""Sources remembered between commands: $DOCSLICE_SOURCE, else `source` in a .docslice.toml here or above."""

from __future__ import annotations

import os
import tomllib
from argparse import Namespace
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from docs_mcp.environment import env
from docs_mcp.errors import DocsMCPError, InvalidArgument
from docs_mcp.fetch.versions import expand_specs, parse_defaults

#: One source per line (a newline, not the path separator: `:` is in every URL and in `name:path`).
ENV = "DOCSLICE_SOURCE"  # or $DOCS_MCP_SOURCE, its name before 0.5
PROJECT_FILE = ".docslice.toml"
#: What --help says of the remembered sources (its --source line says "see below").
HELP = (
    f"Sources remembered: without --source, every command reads ${ENV} (one --source value per line), else "
    f"`source` in the nearest {PROJECT_FILE} in the current folder or a parent, a TOML file holding only "
    f'that list: source = ["pg=https://www.postgresql.org/docs/15/", "./docs"] (folders relative to the '
    'file\'s own folder), and optionally versions = "3.2,4.2" and default_version = "NAME@4.2" (as '
    "--versions and --default-version). Any --source on the command line replaces the remembered ones."
)
#: Set to 1, this lets a project file name folders outside its own (a cloned repository's file may not add `~`).
OUTSIDE_ENV = "DOCSLICE_PROJECT_OUTSIDE"


@dataclass(frozen=True)
class Remembered:
    """The `--source` values to use when none is given, and where they were found."""

    specs: tuple[str, ...]
    origin: str
    #: The file's `default_version` values (NAME@VERSION).
    defaults: tuple[str, ...] = ()


def remembered_sources(cwd: Path | None = None, environ: Mapping[str, str] = os.environ) -> Remembered | None:
    """$DOCSLICE_SOURCE when set, else the nearest .docslice.toml from `cwd` up; None when neither is."""
    lines = tuple(line.strip() for line in (env("SOURCE", "", environ) or "").splitlines() if line.strip())
    if lines:
        return Remembered(tuple(expand_specs(lines)), f"${ENV}")
    here = (cwd or Path.cwd()).absolute()
    for folder in (here, *here.parents):
        path = folder / PROJECT_FILE
        if path.is_file():
            outside = (env("PROJECT_OUTSIDE", "", environ) or "").strip() == "1"
            return _read(path, outside)
    return None


def _read(path: Path, outside: bool = False) -> Remembered:
    """The file's `source` list (or one string), its `{version}` patterns made one per version, folders made
    absolute from the file's own folder and refused outside it, unless `outside` ($DOCSLICE_PROJECT_OUTSIDE=1)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InvalidArgument(f"{path} cannot be read: {exc}") from None
    unknown = sorted(set(data) - {"source", "versions", "default_version"})
    specs, versions, defaults = (_strings(data.get(k)) for k in ("source", "versions", "default_version"))
    if unknown or not specs or None in (versions, defaults):
        raise InvalidArgument(
            f'{path}: write the docs roots as `source = ["https://…/docs/", "NAME=./folder"]` '
            f"(a list of --source values; nothing else is read{', not ' + ', '.join(unknown) if unknown else ''})"
        )
    anchored = tuple(
        _anchored(s.strip(), path.parent) for s in expand_specs(specs, ",".join(versions) or None)
    )
    home = path.parent.resolve()
    for spec, folder in anchored:
        if folder is not None and not outside and not folder.is_relative_to(home):
            raise InvalidArgument(
                f"{path} names {spec!r}, a folder outside its own ({home}): a project file (a cloned repository's "
                f"too) names only folders inside it. Give that folder with --source or ${ENV}, or set "
                f"{OUTSIDE_ENV}=1 to accept the file as it is"
            )
    return Remembered(tuple(spec for spec, _ in anchored), str(path), tuple(defaults))


def _strings(value: object) -> list[str] | None:
    """A TOML string or list of strings as a list ([] when absent); None when it is anything else."""
    value = [value] if isinstance(value, str) else [] if value is None else value
    return value if isinstance(value, list) and all(isinstance(v, str) for v in value) else None


def _anchored(spec: str, base: Path) -> tuple[str, Path | None]:
    """A folder relative to the file's own folder, made absolute, and that folder; a URL or anything else stays
    as it is (no folder)."""
    if spec.lower().startswith(("http://", "https://")):
        return spec, None
    folder = _folder(spec, base)
    if folder is not None:
        return str(folder), folder
    name, sep, rest = spec.partition("=")  # NAME=folder
    folder = _folder(rest, base) if sep else None
    return (f"{name}={folder}", folder) if folder is not None else (spec, None)  # --source's checks say why


def _folder(text: str, base: Path) -> Path | None:
    path = Path(text).expanduser()
    path = path if path.is_absolute() else base / path
    return path.resolve() if text and path.is_dir() else None


def source_specs(args: Namespace, required: bool = True) -> list[str]:
    """The --source values given, else the remembered ones ($DOCSLICE_SOURCE, .docslice.toml); none is an
    error unless not `required` (`docslice sources` reads the index, whatever its sources)."""
    if args.source:
        return expand_specs(args.source, getattr(args, "versions", None))
    remembered = remembered_sources()
    if remembered is None and not required:
        return []
    if remembered is None:
        raise DocsMCPError(
            f"no --source given: pass a docs URL (https://…/docs/) or a local folder, or remember them in "
            f'${ENV} (one per line) or in a {PROJECT_FILE} here or above (source = ["…"])'
        )
    return list(remembered.specs)


def default_versions(args: Namespace) -> dict[str, str]:
    """Each versioned source's configured default: --default-version, else the project file's."""
    given = getattr(args, "default_version", None) or []
    remembered = None if given or args.source else remembered_sources()
    return parse_defaults(given or (remembered.defaults if remembered else ()))
