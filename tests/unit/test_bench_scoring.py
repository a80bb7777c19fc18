"""The benchmarks' scoring on cases where ranking matters: evidence is read from LoCoMo's
strings, recall@5/@10 moves with where the evidence is ranked, rows average per
category, and replay splits a conversation's questions in order; the CPU a bench reads
from /proc."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from graphmem.bench import Found, cpu, evidence, mode_scores, score
from graphmem.bench.replay import halves


def test_evidence_is_every_dia_id_in_the_evidence_strings() -> None:
    qa = {"evidence": ["D1:3", "D2:14; D2:15", "see D10:2", "no id here", 7]}
    assert evidence(qa) == {"D1:3", "D2:14", "D2:15", "D10:2"}
    assert evidence({}) == set()


@pytest.mark.parametrize(("ranked", "at5", "at10"), [
    (["D1:1", "D1:2", "x", "x", "x", "x", "x", "x", "x", "x"], 1.0, 1.0),
    (["x", "x", "D1:1", "x", "x", "x", "D1:2", "x", "x", "x"], 0.5, 1.0),
    (["x", "x", "x", "x", "x", "x", "x", "x", "x", "D1:2"], 0.0, 0.5),
    (["x"] * 10 + ["D1:1", "D1:2"], 0.0, 0.0),  # below the tenth counts for nothing
    ([], 0.0, 0.0),
])
def test_recall_at_5_and_10_follow_where_the_evidence_ranks(ranked: list[str], at5: float,
                                                             at10: float) -> None:
    found: Found = {}
    score(found, {"category": 1, "evidence": ["D1:1", "D1:2"]}, ranked)
    assert found == {1: [(at5, at10)]}


def test_a_row_averages_questions_overall_and_per_category() -> None:
    found: Found = {}
    score(found, {"category": 1, "evidence": ["D1:1"]}, ["D1:1"])
    score(found, {"category": 1, "evidence": ["D1:1"]}, ["x"] * 7 + ["D1:1"])
    score(found, {"category": 4, "evidence": ["D1:1", "D1:2"]}, ["D1:2"])
    row = mode_scores("hybrid", found)
    assert row.mode == "hybrid"
    assert (row.recall_at_5, row.recall_at_10) == (50.0, 83.3)
    assert row.by_category == {"multi-hop": {"@5": 50.0, "@10": 100.0, "n": 2},
                               "single-hop": {"@5": 50.0, "@10": 50.0, "n": 1}}
    assert mode_scores("empty", {}).recall_at_10 == 0.0


def test_replay_asks_the_first_half_first() -> None:
    qs = [{"question": str(i)} for i in range(5)]
    first, second = halves(qs)
    assert [q["question"] for q in first] == ["0", "1"]
    assert [q["question"] for q in second] == ["2", "3", "4"]
    assert halves([]) == ([], [])


def test_cpu_seconds_read_a_live_process_and_nothing_else() -> None:
    before = cpu.seconds(os.getpid())
    assert before is not None and before >= 0
    ends = time.process_time() + 0.05
    while time.process_time() < ends:  # a clock tick's worth of work, at least
        pass
    after = cpu.seconds(os.getpid())
    assert after is not None and after > before
    assert cpu.seconds(None) is None
    assert cpu.seconds(2**22 + 12345) is None  # no such process (above Linux's pid_max)


def test_rest_waits_for_a_busy_process_and_not_for_an_idle_one() -> None:
    idle = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        assert cpu.rest(idle.pid, 0, window=0.3) < 1.0  # one window, quiet: done
        assert cpu.rest(busy.pid, 0, at_most=1.5, window=0.3) >= 1.5  # never quiet
        assert cpu.rest(None, 0.1) < 0.5  # nothing to read: the minimum alone
    finally:
        idle.kill()
        busy.kill()
