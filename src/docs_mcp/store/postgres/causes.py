"""Why PostgreSQL cannot be used, in one line an operator acts on: each cause its own words (unreachable,
refused, restarting, wrong password, no such role or database, permission denied, out of connections), and
whether it passes by itself or lasts until someone fixes it (then no message says "retry").

A failed connection has no SQLSTATE in psycopg (libpq reports it as text): its causes are read from libpq's and
the server's words, which are English unless the server's lc_messages says otherwise (then the server's own
line is shown, as it is)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import psycopg


@dataclass(frozen=True)
class Cause:
    """What stops the store, said for people, and whether it lasts until someone acts."""

    #: One line: the cause in a few words, the server's own words, what to do.
    text: str
    lasting: bool


#: (SQLSTATEs (a code or a class), a pattern of the message (lower case); the cause in a few words; what to
#: do; lasting). First match wins: a refused password before the generic words of a failed connection.
_CAUSES: tuple[tuple[tuple[str, ...], re.Pattern[str], str, str, bool], ...] = tuple(
    (codes, re.compile(pattern), short, todo, lasting)
    for codes, pattern, short, todo, lasting in (
        (
            ("28P01",),
            r"password authentication failed",
            "wrong password",
            "fix the password in the index address (or the role's: ALTER ROLE … PASSWORD)",
            True,
        ),
        (
            ("3D000",),
            r'database ".*" does not exist',
            "no such database",
            "create it, or fix the address",
            True,
        ),
        (
            (),
            r'role ".*" does not exist',
            "no such role",
            "create it (docs/deploy.md), or fix the address",
            True,
        ),
        (
            (),
            r"no pg_hba\.conf entry",
            "not admitted",
            "add a line for this role and host to pg_hba.conf",
            True,
        ),
        (
            ("42501",),
            r"permission denied",
            "permission denied",
            "grant the role its privileges (docs/deploy.md, 'Privileges')",
            True,
        ),
        (
            ("53300",),
            r"too many (clients|connections)",
            "out of connections",
            "the server's max_connections (or the role's CONNECTION LIMIT) is reached: fewer replicas or a "
            "smaller DOCSLICE_PG_POOL_SIZE, or a higher limit; calls work again once connections free up",
            False,
        ),
        (
            ("57P",),
            r"starting up|shutting down|in recovery mode|administrator command",
            "the database is restarting",
            "calls work again once it answers",
            False,
        ),
        (
            (),
            r"connection refused|no such file or directory",
            "refused (nothing listens at that address)",
            "PostgreSQL is down, or the host or port is wrong; calls work again once it answers",
            False,
        ),
        (
            (),
            r"timeout expired|timed out|could not translate host name|unreachable|no route to host",
            "unreachable",
            "the host does not answer (down, a firewall, or a wrong address); calls work again once it answers",
            False,
        ),
        (
            ("08",),
            r"server closed the connection|connection lost|consuming input failed|eof detected",
            "the connection was lost",
            "the database restarted or the network dropped it; calls work again once it answers",
            False,
        ),
    )
)


def server_words(exc: BaseException) -> str:
    """The server's (or libpq's) own reason, one line: the text after its last "FATAL:" or "failed:"."""
    line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    for mark in ("FATAL:", "ERROR:", "failed:"):
        if mark in line:
            line = line.rsplit(mark, 1)[1]
            break
    return line.strip() or type(exc).__name__


def cause_of(exc: psycopg.Error) -> Cause:
    """The cause of a database error, for the log, /readyz and the tool's error alike."""
    state, message = exc.sqlstate or "", str(exc).lower()
    said = server_words(exc)
    for codes, pattern, short, todo, lasting in _CAUSES:
        if (state and state.startswith(codes)) or pattern.search(message):
            return Cause(f"{short}: {said}; {todo}", lasting)
    passes = not state or state.startswith(("08", "57P")) or state == "53300"
    return Cause(said, not passes)
