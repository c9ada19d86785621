"""A build's lease holder: gone only when this machine can tell its process has ended."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from docs_mcp.model.holder import gone, this_process

pytestmark = pytest.mark.timeout(30)


def test_this_process_is_not_gone():
    assert not gone(this_process())
    assert this_process().endswith(f"/{os.getpid()}")


def test_a_process_that_ended_here_is_gone():
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    machine = this_process().rpartition("/")[0]
    assert gone(f"{machine}/{child.stdout.strip()}")


def test_another_machine_or_no_holder_is_left_to_the_lease():
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    assert not gone(f"elsewhere.example/pid:[1]/{child.stdout.strip()}")
    assert not gone("")
    assert not gone("garbage")


def test_a_holder_read_from_a_damaged_index_says_nothing():
    machine = this_process().rpartition("/")[0]
    for pid in ("0", "-1", "1" + "0" * 30, str(2**31), "1.5", ""):
        assert not gone(f"{machine}/{pid}"), pid
