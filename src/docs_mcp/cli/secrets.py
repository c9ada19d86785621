"""Secrets the command line takes: the bearer token and the index's address (which may hold a password).

Each comes from a file (`--token-file`, `--index-url-file`), the environment ($DOCSLICE_TOKEN,
$DOCSLICE_INDEX_URL; their DOCS_MCP_ names still read) or the command line itself, where every local user can read it (ps, /proc/PID/cmdline):
that last way works, with a warning."""

from __future__ import annotations

import argparse
import stat
from collections.abc import Callable
from pathlib import Path

from docs_mcp.environment import default_index_url, env
from docs_mcp.errors import DocsMCPError, InvalidArgument


def read_secret(path: Path, option: str) -> tuple[str, str | None]:
    """The secret in `path` (one line; surrounding blanks dropped), and a warning if others may read the file."""
    try:
        text = path.read_text(encoding="utf-8")
        mode = path.stat().st_mode
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise InvalidArgument(f"{option} {str(path)!r}: cannot read it ({reason})") from exc
    secret = text.strip()
    if not secret or "\n" in secret or "\r" in secret:
        raise InvalidArgument(f"{option} {str(path)!r}: write the value alone on the file's first line")
    warning = None
    if mode & (stat.S_IRGRP | stat.S_IROTH):
        warning = (
            f"warning: {path} can be read by other users (mode {stat.S_IMODE(mode):o}); "
            f"`chmod 600 {path}` keeps it yours"
        )
    return secret, warning


def _visible(option: str, instead: str) -> str:
    return f"warning: {option} is visible to every local user (ps, /proc/PID/cmdline); use {instead} instead"


def token(args: argparse.Namespace, say: Callable[[str], None]) -> str | None:
    """The bearer token: from --token-file, --token (seen by every local user: said) or DOCSLICE_TOKEN."""
    if args.token is not None and args.token_file is not None:
        raise DocsMCPError("give the token once: --token-file or --token, not both")
    if args.token_file is not None:
        found, warning = read_secret(args.token_file, "--token-file")
        if warning:
            say(warning)
        return found
    if args.token is not None:
        say(_visible("--token", "--token-file PATH or DOCSLICE_TOKEN"))
        return args.token
    return env("TOKEN") or None


def index_url(args: argparse.Namespace, say: Callable[[str], None]) -> str | None:
    """The shared index's address: from --index-url-file, --index-url (a password in it is seen by every
    local user: said) or DOCSLICE_INDEX_URL; None for the SQLite file in the cache dir."""
    given, path = getattr(args, "index_url", None), getattr(args, "index_url_file", None)
    if given is not None and path is not None:
        raise DocsMCPError("give the index's address once: --index-url-file or --index-url, not both")
    if path is not None:
        found, warning = read_secret(path, "--index-url-file")
        if warning:
            say(warning)
        return found
    if given:
        if _holds_password(given):
            say(_visible("--index-url's password", "--index-url-file PATH or DOCSLICE_INDEX_URL"))
        return given
    return default_index_url()


def _holds_password(address: str) -> bool:
    """Whether libpq would read a password in `address` (psycopg's own parser; one it cannot read may hold
    one). Without psycopg (the `postgres` extra) the command stops at the index anyway: nothing to say."""
    try:
        from psycopg.conninfo import conninfo_to_dict
    except ImportError:
        return False
    try:
        return bool(conninfo_to_dict(address).get("password"))
    except Exception:  # psycopg.ProgrammingError: unreadable as written, so it may hold one anywhere
        return True
