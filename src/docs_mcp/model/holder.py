"""Which process holds a build's lease, and whether it is known to be gone: a build that died on this machine
(killed, or stopped by a full disk before it could store its outcome) is said at once, not when its lease runs out."""

from __future__ import annotations

import os
import socket


def _machine() -> str:
    """This host and its PID namespace: a PID means the same process only where both match (containers share
    a host name less often than a namespace, and a replica's PIDs are its own)."""
    try:
        space = os.readlink("/proc/self/ns/pid")
    except OSError:
        space = ""
    return f"{socket.gethostname()}/{space}"


def this_process() -> str:
    """The holder a build stores beside its lease: 'host/pid:[namespace]/pid'."""
    return f"{_machine()}/{os.getpid()}"


def gone(holder: str) -> bool:
    """Whether the process that stored `holder` has ended, as far as this one can tell: only on the same
    machine and PID namespace (elsewhere the lease alone says). A reused PID counts as alive: the lease
    still runs out."""
    machine, _, pid = holder.rpartition("/")
    # The holder is read from the index: a PID out of range (0 would ask for our own group) says nothing.
    if not machine or not pid.isdigit() or not 0 < int(pid) < 2**31 or machine != _machine():
        return False
    try:
        os.kill(int(pid), 0)  # signal 0: only whether it exists
    except ProcessLookupError:
        return True
    except OSError:  # alive, under another user
        return False
    return False
