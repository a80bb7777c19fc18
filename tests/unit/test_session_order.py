"""The order in which a batch's memories take their places in their sessions (pure)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from graphmem.base.options import WriteOptions
from graphmem.base.types import MemoryIn
from graphmem.write.links import arrivals
from graphmem.write.plan import Row, resolve
from graphmem.write.records import Numbered

NOW = datetime(2025, 3, 1, tzinfo=UTC)


def rows(*records: dict, session: str | None = None) -> list[Row]:
    opts = WriteOptions(scope="s", now=NOW, model="m", session=session)
    return [resolve(Numbered(i + 1, MemoryIn.model_validate(r)), i, opts)
            for i, r in enumerate(records)]


def test_a_batch_arrives_in_input_order_when_its_times_agree() -> None:
    batch = rows({"id": "c", "text": "third"}, {"id": "a", "text": "first"},
                 {"id": "b", "text": "second"}, session="chat")
    assert arrivals(batch) == [{"session": "s#chat", "ids": ["c", "a", "b"]}]


def test_within_a_batch_earlier_times_come_first() -> None:
    batch = rows({"id": "late", "text": "x", "created_at": NOW},
                 {"id": "early", "text": "y", "created_at": NOW - timedelta(hours=1)},
                 session="chat")
    assert arrivals(batch)[0]["ids"] == ["early", "late"]


def test_each_session_gets_its_own_order_and_sessionless_records_none() -> None:
    batch = rows({"id": "a", "text": "x", "session": "one"},
                 {"id": "b", "text": "y"},
                 {"id": "c", "text": "z", "session": "two"},
                 {"id": "d", "text": "w", "session": "one"})
    assert arrivals(batch) == [{"session": "s#one", "ids": ["a", "d"]},
                               {"session": "s#two", "ids": ["c"]}]


def test_explicit_positions_confirmations_and_rejections_take_no_new_place() -> None:
    batch = rows({"id": "placed", "text": "x", "metadata": {"turn": 4}},
                 {"id": "confirming", "text": "y"}, {"id": "refused", "text": "z"},
                 {"id": "kept", "text": "w"}, session="chat")
    assert batch[0].turn == 4 and batch[0].props["position"] == 4
    batch[1].status, batch[1].target = "confirmed", "placed"
    batch[2].status = "rejected"
    assert arrivals(batch) == [{"session": "s#chat", "ids": ["kept"]}]


def test_the_same_id_twice_takes_one_place() -> None:
    batch = rows({"id": "a", "text": "x"}, {"id": "a", "text": "x again"}, session="chat")
    assert arrivals(batch) == [{"session": "s#chat", "ids": ["a"]}]


def test_late_turns_arrive_after_the_rest_of_their_session_in_their_own_order() -> None:
    from graphmem.bench.agent import arriving

    turns = [Numbered(i, MemoryIn(text=f"turn {i}", session=f"s{i // 10}")) for i in range(30)]
    assert arriving(turns, 0.0) == turns
    moved = arriving(turns, 0.3, seed=7)
    assert moved == arriving(turns, 0.3, seed=7) and moved != turns  # reproducible
    for s in range(3):
        mine = [n.line for n in moved if n.record.session == f"s{s}"]
        assert sorted(mine) == list(range(10 * s, 10 * s + 10))
        late = mine[next(i for i in range(1, 10) if mine[i] < mine[i - 1]):]
        assert late == sorted(late) and mine[:len(mine) - len(late)] == sorted(
            mine[:len(mine) - len(late)])
    # Sessions keep their order among each other.
    assert [n.record.session for n in moved] == sorted(n.record.session for n in moved)
