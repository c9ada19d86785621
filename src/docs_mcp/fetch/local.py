"""Pages of a local source: read from regular files only, within the size limit, revalidated by mtime."""

from __future__ import annotations

import os
import stat
import time

from docs_mcp.errors import FetchError, NotDocumentation, PageNotFound, PageTooLarge, echo
from docs_mcp.fetch.bodies import decode
from docs_mcp.fetch.page import RawPage
from docs_mcp.fetch.sources import Location


def read_local(loc: Location, last_modified: str, limit: int) -> RawPage:
    """A page of a local source: a regular file only (a FIFO, device or socket is refused without blocking)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    key = echo(loc.key)
    try:
        fd = os.open(loc.path, flags)
    except (FileNotFoundError, NotADirectoryError):
        raise PageNotFound(
            f"{key} does not exist under {loc.source.root}; use get_doc_toc or search_docs "
            "to find existing pages"
        ) from None
    except OSError as exc:
        raise FetchError(f"{key} cannot be opened: {exc.strerror or exc.__class__.__name__}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotDocumentation(
                f"{key} is {_file_kind(info.st_mode)}, not a regular file; only documentation files are read"
            )
        mtime = str(int(info.st_mtime))
        if last_modified and last_modified == mtime:
            return RawPage(loc, "", "html", last_modified=mtime, fetched_at=time.time(), not_modified=True)
        if info.st_size > limit:
            raise PageTooLarge(
                f"{key} is {info.st_size:,} bytes, over the {limit:,}-byte limit; "
                "raise --max-body-bytes or pick a smaller page"
            )
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:  # it grew since fstat
            raise PageTooLarge(f"{key} is over the {limit:,}-byte limit; raise --max-body-bytes")
    except OSError as exc:
        raise FetchError(f"{key} cannot be read: {exc.strerror or exc.__class__.__name__}") from None
    finally:
        os.close(fd)
    kind = "markdown" if loc.path.suffix.lower() == ".md" else "html"
    return RawPage(loc, decode(b"".join(chunks), None), kind, last_modified=mtime, fetched_at=time.time())


def _file_kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a regular file"
