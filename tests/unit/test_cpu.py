"""The CPU clocks the benches read from /proc: a process's own, and the whole machine's."""

from __future__ import annotations

import os
import sys
import time

import pytest

from graphmem.bench import cpu

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _spin(seconds: float) -> None:
    until = time.process_time() + seconds
    while time.process_time() < until:
        pass


def test_a_process_clock_counts_its_own_work() -> None:
    before = cpu.seconds(os.getpid())
    _spin(0.3)
    after = cpu.seconds(os.getpid())
    assert before is not None and after is not None
    assert after - before >= 0.2  # the clock ticks in 10 ms


def test_the_machine_clock_counts_busy_cores_within_all_of_them() -> None:
    before = cpu.machine()
    _spin(0.3)
    after = cpu.machine()
    assert before is not None and after is not None
    busy, total = after[0] - before[0], after[1] - before[1]
    # (to a rounding: /proc/stat counts in ticks, a fully busy machine gives busy == total)
    assert 0.2 <= busy <= total + 1e-6  # this process's spin at least, never more than every core
    assert cpu.seconds(None) is None and cpu.seconds(2**22 + 12345) is None
