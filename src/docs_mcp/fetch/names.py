"""Source names: the one given (`NAME=URL|DIR`), else one derived from the host and path or the folder."""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from pathlib import Path
from urllib.parse import unquote, urlsplit

from docs_mcp.settings import GENERIC_FOLDER_NAMES, GENERIC_NAME_PARTS, SOURCE_NAME_MAX

#: NAME=…, or NAME@VERSION=… (one version of a source, see versions.py).
_NAME_RE = re.compile(r"^([A-Za-z0-9_.-]+(?:@[A-Za-z0-9_.+-]+)?)=(.+)$")


def explicit_name(spec: str) -> str | None:
    """The NAME of a `NAME=URL|DIR` spec (a URL's own `=` never counts)."""
    m = _NAME_RE.match(spec.strip())
    return m.group(1) if m and not spec.strip().lower().startswith(("http://", "https://")) else None


def default_name(root: str) -> str:
    """'https://docs.python.org/3/' → 'python-3': host labels (no www/docs/TLD), then path segments."""
    parts = urlsplit(root)
    host = parts.hostname or ""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
        ip = True
    except ValueError:
        loopback = ip = False
    words: list[str] = []
    if not ip and host != "localhost":
        labels = host.split(".")
        words = [x for x in (labels[:-1] if len(labels) > 1 else labels) if x not in GENERIC_NAME_PARTS]
    words += [seg for seg in unquote(parts.path).split("/") if seg and seg.lower() not in GENERIC_NAME_PARTS]
    name = _clean_name("-".join(words))
    if not name:  # an address with nothing to go by: name the machine and its port
        machine = "localhost" if loopback else host
        name = _clean_name(f"{machine}-{parts.port}" if parts.port else machine) or "site"
    if len(name) > SOURCE_NAME_MAX:
        name = name[:SOURCE_NAME_MAX].rsplit("-", 1)[0] or name[:SOURCE_NAME_MAX]
    return name


def folder_name(directory: Path) -> str:
    """A folder's own name, or its parent's when it is a generic output folder (html, docs, _build…)."""
    for folder in (directory, *directory.parents):
        if folder.name.lower() not in GENERIC_FOLDER_NAMES and _clean_name(folder.name):
            return _clean_name(folder.name)[:SOURCE_NAME_MAX]
    return "local"


def _clean_name(text: str) -> str:
    """Lowercase ASCII letters, digits, `.` and `_`, other runs as one `-` ('Über Uns' → 'uber-uns')."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9_.]+", "-", ascii_text.lower()).strip("-.")
