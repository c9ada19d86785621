"""What an operator reads on stderr: the status lines (`say`) and the log records, in one format chosen by
DOCSLICE_LOG_FORMAT: `text` (the default: `docslice: …`), `utc` (each line after its UTC time,
2026-12-02T01:40:00.123Z) or `json` (one object a line: time, level, program, message)."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime

from docs_mcp.cli.arguments import program
from docs_mcp.environment import env

FORMATS = ("text", "utc", "json")


def log_format() -> str:
    """The format asked for in DOCSLICE_LOG_FORMAT (an unknown one reads as `text`)."""
    chosen = (env("LOG_FORMAT") or "").strip().lower()
    return chosen if chosen in FORMATS else "text"


def render(message: str, level: str = "info", created: float | None = None) -> str:
    """One stderr line in the chosen format."""
    when = datetime.fromtimestamp(created, UTC) if created is not None else datetime.now(UTC)
    stamp = when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"
    chosen = log_format()
    if chosen == "json":
        line = {"time": stamp, "level": level, "program": program(), "message": message}
        return json.dumps(line, ensure_ascii=False)
    return f"{stamp + ' ' if chosen == 'utc' else ''}{program()}: {message}"


class _Formatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        if record.exc_info:
            message += "\n" + self.formatException(record.exc_info)
        level = record.levelname.lower()
        shown = (
            message
            if log_format() == "json" or record.levelno == logging.INFO
            else f"{record.levelname} {message}"
        )
        return render(shown, level, record.created)


def configure() -> None:
    """Log records on stderr in the chosen format: warnings of every library, docslice's own lines from INFO
    (a migration, a replica's start and stop, with DOCSLICE_LOG_CALLS one line a tool call)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_Formatter())
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    logging.getLogger("docs_mcp").setLevel(logging.INFO)
