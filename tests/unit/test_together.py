"""Calls that arrive together run together (`base.batching.Batches`): the embedding queue
(`runtime.Together`) and the scope's write queue (`write.group.Groups`), each with the
function it calls."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import numpy as np
import pytest

from graphmem.base.options import WriteOptions
from graphmem.base.types import MemoryIn
from graphmem.embedding.runtime import Together
from graphmem.write import group
from graphmem.write.plan import Row, resolve
from graphmem.write.records import Numbered

NOW = datetime(2026, 11, 27, tzinfo=UTC)


def _vectors(texts: list[str]) -> np.ndarray:
    return np.array([[float(len(t)), float(i)] for i, t in enumerate(texts)])


def test_an_uncontended_call_runs_alone_and_at_once() -> None:
    runs: list[list[str]] = []
    together = Together(lambda texts: (runs.append(texts), _vectors(texts))[1], most=8)
    out = together(["abc"])
    assert runs == [["abc"]]
    assert out.tolist() == [[3.0, 0.0]]


def _gated(run: list[list[str]], gate: threading.Event, started: threading.Event):
    """A run function whose first run waits at `gate`, so that others queue behind it."""
    def go(texts: list[str]) -> np.ndarray:
        run.append(list(texts))
        if len(run) == 1:
            started.set()
            assert gate.wait(10)
        return _vectors(texts)
    return go


def test_calls_waiting_behind_a_run_share_the_next_and_each_gets_its_own() -> None:
    runs: list[list[str]] = []
    gate, started = threading.Event(), threading.Event()
    together = Together(_gated(runs, gate, started), most=8)
    got: dict[str, list[list[float]]] = {}
    first = threading.Thread(target=lambda: got.update(a=together(["a"]).tolist()))
    first.start()
    assert started.wait(10)
    waiting = [threading.Thread(target=lambda t=t: got.update({t: together([t, t * 2]).tolist()}))
               for t in ("bb", "ccc")]
    for t in waiting:
        t.start()
    while together.batches.waiting() < 3:  # both are queued behind the first run
        threading.Event().wait(0.001)
    gate.set()
    for t in [first, *waiting]:
        t.join(10)
    assert runs[0] == ["a"]
    assert sorted(map(len, runs[1:])) == [4] and len(runs) == 2  # one run for both
    assert got["bb"] == [[2.0, runs[1].index("bb")], [4.0, runs[1].index("bbbb")]]
    assert [row[0] for row in got["ccc"]] == [3.0, 6.0]


def test_a_run_takes_at_most_most_texts_and_a_failure_reaches_its_callers() -> None:
    runs: list[list[str]] = []

    def run(texts: list[str]) -> np.ndarray:
        runs.append(list(texts))
        if "boom" in texts:
            raise ValueError("boom")
        return _vectors(texts)

    together = Together(run, most=2)
    with pytest.raises(ValueError, match="boom"):
        together(["boom"])
    assert together(["x", "y"]).shape == (2, 2)
    assert together.batches.waiting() == 0


def test_a_text_the_model_cannot_take_fails_only_the_call_that_sent_it() -> None:
    runs: list[list[str]] = []
    gate, started = threading.Event(), threading.Event()
    gated = _gated(runs, gate, started)

    def run(texts: list[str]) -> np.ndarray:
        if any("\ud800" <= c <= "\udfff" for t in texts for c in t):
            runs.append(list(texts))
            raise TypeError("TextEncodeInput must be Union[TextInputSequence, ...]")
        return gated(texts)

    together = Together(run, most=8)
    got: dict[str, object] = {}

    def ask(text: str) -> None:
        try:
            got[text] = together([text]).tolist()
        except TypeError as e:
            got[text] = e

    first = threading.Thread(target=ask, args=("first",))
    first.start()
    assert started.wait(10)
    behind = [threading.Thread(target=ask, args=(t,)) for t in ("ok", "bad\ud800", "fine")]
    for t in behind:
        t.start()
    while together.batches.waiting() < 4:  # all three wait behind the first run, together
        threading.Event().wait(0.001)
    gate.set()
    for t in [first, *behind]:
        t.join(10)
    assert isinstance(got["bad\ud800"], TypeError)
    assert got["ok"] == [[2.0, 0.0]] and got["fine"] == [[4.0, 0.0]]
    assert got["first"] == [[5.0, 0.0]]


def _rows(ids: list[str], scope: str = "s") -> tuple[list[Row], WriteOptions]:
    opts = WriteOptions(scope=scope, now=NOW, model="m")
    return [resolve(Numbered(n, MemoryIn(id=i, text=f"text {i}"), "<t>"), n, opts)
            for n, i in enumerate(ids)], opts


def _gated_writer(written: list[list[str]], gate: threading.Event,
                  started: threading.Event):
    """A writer whose first write waits at `gate`, so that others queue behind it; it
    fails any write holding a row "bad"."""
    def writer(rows: list[Row], opts: WriteOptions) -> None:
        written.append([r.id for r in rows])
        if len(written) == 1:
            started.set()
            assert gate.wait(10)
        if "bad" in [r.id for r in rows]:
            raise ValueError("bad row")
    return writer


def test_a_scope_write_waiting_behind_another_joins_the_next_transaction() -> None:
    groups = group.Groups()
    written: list[list[str]] = []
    gate, started = threading.Event(), threading.Event()
    writer = _gated_writer(written, gate, started)
    tools = (object(),)
    first = threading.Thread(target=groups.write, args=(*_rows(["a"]), tools, writer))
    first.start()
    assert started.wait(10)
    later = [threading.Thread(target=groups.write, args=(*_rows([i]), tools, writer))
             for i in ("b", "c")]
    for t in later:
        t.start()
    while groups.batches.waiting() < 3:
        threading.Event().wait(0.001)
    gate.set()
    for t in [first, *later]:
        t.join(10)
    assert written[0] == ["a"] and sorted(written[1]) == ["b", "c"] and len(written) == 2
    assert groups.batches.waiting() == 0


def test_a_failing_input_fails_alone_and_one_id_twice_is_written_in_turn() -> None:
    groups = group.Groups()
    written: list[list[str]] = []
    gate, started = threading.Event(), threading.Event()
    writer = _gated_writer(written, gate, started)
    tools = (object(),)
    errors: dict[str, BaseException | None] = {}

    def write(ids: list[str], name: str) -> None:
        try:
            groups.write(*_rows(ids), tools, writer)
            errors[name] = None
        except ValueError as e:
            errors[name] = e

    first = threading.Thread(target=write, args=(["a"], "first"))
    first.start()
    assert started.wait(10)
    later = [threading.Thread(target=write, args=(ids, name)) for ids, name in
             ((["b"], "good"), (["bad"], "bad"), (["b"], "again"))]
    for t in later:
        t.start()
        while groups.batches.waiting() < 2 + later.index(t):
            threading.Event().wait(0.001)  # queued in this order
    gate.set()
    for t in [first, *later]:
        t.join(10)
    assert errors["first"] is None and errors["good"] is None and errors["again"] is None
    assert isinstance(errors["bad"], ValueError)
    # "b" twice cannot share a transaction: the group stops before the second.
    assert written == [["a"], ["b", "bad"], ["b"], ["bad"], ["b"]]


def test_only_small_inputs_without_explicit_turns_are_grouped() -> None:
    rows, opts = _rows(["a", "b"])
    assert group.groupable(rows, opts)
    assert not group.groupable([], opts)
    assert not group.groupable(rows, opts.model_copy(update={"batch_size": 1}))
    rows[0].turn = 3
    assert not group.groupable(rows, opts)


def test_different_scopes_and_tools_queue_apart() -> None:
    _, opts_a = _rows(["x"], "one")
    _, opts_b = _rows(["x"], "two")
    tools = (object(),)
    assert group.key(opts_a, tools) != group.key(opts_b, tools)
    assert group.key(opts_a, tools) != group.key(opts_a, (object(),))


def test_each_writer_of_a_group_is_told_the_groups_commits() -> None:
    # A caller's answer names the bookmarks of the commit that wrote its rows (causal.MADE),
    # whoever of the group wrote it.
    from graphmem.graph.causal import MADE

    groups = group.Groups()
    written: list[list[str]] = []
    gate, started = threading.Event(), threading.Event()
    gated = _gated_writer(written, gate, started)

    def writer(rows: list[Row], opts: WriteOptions) -> None:
        gated(rows, opts)
        MADE.get().append(f"commit-{len(written)}")  # as store.commit records one

    told: dict[str, list[str]] = {}

    def write(name: str) -> None:
        MADE.set([])
        groups.write(*_rows([name]), (None,), writer)
        told[name] = MADE.get()

    first = threading.Thread(target=write, args=("a",))
    first.start()
    assert started.wait(10)
    later = [threading.Thread(target=write, args=(i,)) for i in ("b", "c")]
    for t in later:
        t.start()
    while groups.batches.waiting() < 3:
        threading.Event().wait(0.001)
    gate.set()
    for t in [first, *later]:
        t.join(10)
    assert told == {"a": ["commit-1"], "b": ["commit-2"], "c": ["commit-2"]}
