"""Which contexts an input foresees (graphmem/write/contexts.py, `foresee`): the turn before
in the same input and session, by position as the chain orders them, never a private
turn's text in a public turn's context."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from graphmem.write.contexts import foresee
from graphmem.write.plan import Row

AT = datetime(2026, 1, 1, tzinfo=UTC)


def row(mid: str, text: str, turn: int | None, session: str | None = "s#chat",
        visibility: str = "public") -> Row:
    props: dict[str, Any] = {"text": text, "created_at": AT, "visibility": visibility}
    return Row(index=0, item=None, id=mid, by_content=False, props=props,  # type: ignore[arg-type]
               session=session, session_name="chat", turn=turn)


def test_each_turn_reads_after_the_one_before_it_in_the_input() -> None:
    rows = [row("c", "third", 5), row("a", "first", 0), row("b", "second", 2),
            row("x", "elsewhere", 1, session="s#other")]
    foresee(rows)
    assert {r.id: r.context for r in rows} == {
        "a": None, "b": "first\nsecond", "c": "second\nthird", "x": None}


def test_turns_placed_by_arrival_foresee_nothing() -> None:
    rows = [row("a", "first", None), row("b", "second", None)]
    foresee(rows)
    assert [r.context for r in rows] == [None, None]


def test_a_public_turn_never_reads_after_a_private_one() -> None:
    rows = [row("a", "secret", 0, visibility="private"), row("b", "open", 1),
            row("c", "mine", 2, visibility="private"), row("d", "also mine", 3,
                                                            visibility="private")]
    foresee(rows)
    assert [r.context for r in rows] == [None, None, "open\nmine", "mine\nalso mine"]
