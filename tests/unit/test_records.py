"""Parsing and validating what callers hand in (no server)."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

from graphmem.base.errors import InputError
from graphmem.base.types import MAX_TEXT_CHARS, MemoryIn, canonical_kind
from graphmem.write import plan as planning
from graphmem.write import records

NOW = datetime(2026, 11, 1, tzinfo=UTC)


@pytest.mark.parametrize(("alias", "kind"), [
    ("observation", "episodic"), ("event", "episodic"), ("insight", "semantic"),
    ("fact", "semantic"), ("procedure", "procedural"), ("skill", "procedural"),
    ("identity", "core"), ("rule", "heuristic"), ("Reflection", "reflection"),
])
def test_kind_aliases_resolve(alias: str, kind: str) -> None:
    assert canonical_kind(alias) == kind
    assert MemoryIn(text="something worth keeping", kind=alias).kind == kind


def test_unknown_kind_names_the_choices() -> None:
    with pytest.raises(ValueError, match="unknown kind 'gossip'"):
        canonical_kind("gossip")


@pytest.mark.parametrize(("record", "field", "message"), [
    ({"text": "fine", "importance": math.nan}, "importance", "finite"),
    ({"text": "fine", "importance": 1.5}, "importance", "less than or equal to 1"),
    ({"text": "fine", "confidence": 0.99}, "confidence", "0.95"),
    ({"text": "   "}, "text", "empty"),
    ({"text": "x" * (MAX_TEXT_CHARS + 1)}, "text", "limit"),
    ({"text": "fine", "kind": "gossip"}, "kind", "unknown kind"),
    ({"text": "fine", "metadata": {"bad key": 1}}, "metadata", "metadata key"),
    ({"text": "fine", "created_at": "yesterday"}, "created_at", "datetime"),
    ({"text": "fine", "colour": "red"}, "colour", "unknown field"),
    ({"kind": "semantic"}, "text", "missing"),
    ({"text": 42}, "text", "string"),
])
def test_bad_records_name_line_and_field(record: dict, field: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        records.validate(record, "notes.jsonl", 7)
    assert info.value.line == 7
    assert info.value.field == field
    assert message in str(info.value)
    assert str(info.value).startswith(f"notes.jsonl:7: field '{field}'")


def test_ndjson_reports_the_failing_line() -> None:
    data = '{"text": "first memory"}\n\n{"text": "second"\n{"text": "third"}\n'
    with pytest.raises(InputError, match=r"^in.ndjson:3: malformed JSON"):
        records.parse_records(data, "in.ndjson")


def test_ndjson_line_that_is_not_an_object() -> None:
    with pytest.raises(InputError, match=r"^-:2: expected a JSON object, got list"):
        records.parse_records('{"text": "a memory"}\n[1, 2]\n', "-")


def test_single_object_array_and_ndjson_all_parse() -> None:
    one = records.parse_records('{\n  "text": "pretty printed"\n}\n')
    many = records.parse_records('[{"text": "a"}, {"text": "b"}]')
    nd = records.parse_records('{"text": "a"}\n\n{"text": "b"}\n')
    assert [r.record.text for r in one] == ["pretty printed"]
    assert [(r.line, r.record.text) for r in many] == [(1, "a"), (2, "b")]
    assert [(r.line, r.record.text) for r in nd] == [(1, "a"), (3, "b")]


def test_empty_input_is_an_error() -> None:
    with pytest.raises(InputError, match="no records"):
        records.parse_records("  \n")


def test_generated_ids_are_stable_and_ignore_case_and_spacing() -> None:
    a = records.generated_id("s", records.normalise("The cache  layer is Redis"))
    assert a == records.generated_id("s", records.normalise("the cache layer is redis "))
    assert a != records.generated_id("other", records.normalise("The cache layer is Redis"))
    assert records.content_hash("A  b") == records.content_hash("a b")


def plan(data: str, **flags):
    opts = planning.WriteOptions(scope="s", now=NOW, model="m", **flags)
    return planning.plan(records.parse_records(data, "f"), opts)


def test_confidence_defaults_by_provenance_and_given_values_are_kept() -> None:
    rows, _ = plan(
        '{"text": "user said it"}\n'
        '{"text": "agent guessed it", "source": "agent"}\n'
        '{"text": "explicitly stated value", "source": "agent", "confidence": 0.9, '
        '"added_by": "bob"}\n',
        added_by="cfg",
    )
    assert [r.props["confidence"] for r in rows] == [0.7, 0.6, 0.9]
    assert [r.props["added_by"] for r in rows] == ["cfg", "cfg", "bob"]
    assert all(r.props["created_at"] == NOW for r in rows)


def test_flags_fill_what_a_record_leaves_out_and_never_overwrite_it() -> None:
    rows, _ = plan('{"text": "no kind given here"}\n'
                   '{"text": "kind given here", "kind": "procedure", "session": "mine"}\n',
                   kind="semantic", session="flag-session", visibility="private")
    assert [r.props["kind"] for r in rows] == ["semantic", "procedural"]
    assert [r.session_name for r in rows] == ["flag-session", "mine"]
    assert [r.session for r in rows] == ["s#flag-session", "s#mine"]
    assert {r.props["visibility"] for r in rows} == {"private"}


def test_metadata_is_stored_as_prefixed_properties() -> None:
    rows, _ = plan('{"text": "t", "metadata": {"file": "a.py", "line": 3}}', signal_gate=False)
    assert rows[0].props["meta"] == {"meta.file": "a.py", "meta.line": 3}


def test_a_repeated_explicit_id_names_both_lines() -> None:
    with pytest.raises(InputError, match=r"^f:2: field 'id': id 'x' is already used on line 1"):
        plan('{"id": "x", "text": "one thing"}\n{"id": "x", "text": "two things"}\n',
             signal_gate=False)


def test_identity_is_the_id_the_format_key_or_the_normalised_text() -> None:
    rows, _ = plan('{"text": "same thing said"}\n{"text": "Same  thing SAID"}\n'
                   '{"id": "given", "text": "same thing said"}\n')
    assert rows[0].id == rows[1].id == records.generated_id("s", "same thing said")
    assert [r.by_content for r in rows] == [True, True, False]
    assert rows[2].id == "given"


def test_a_record_for_another_scope_is_refused() -> None:
    with pytest.raises(InputError, match="field 'scope'"):
        plan('{"text": "t", "scope": "elsewhere"}')


def test_gates_reject_records_without_echoing_them() -> None:
    rows, decided = plan('{"text": "deploy key AKIAIOSFODNN7EXAMPLE lives here"}\n'
                         '{"text": "ok"}\n'
                         '{"text": "a perfectly useful memory about Redis"}\n'
                         '{"text": "fine text", "tags": '
                         '["ghp_0123456789abcdefghijABCDEFGHIJ012345"]}\n')
    assert [r.props["text"] for r in rows] == ["a perfectly useful memory about Redis"]
    assert {i: o.line for i, o in decided.items()} == {0: 1, 1: 2, 3: 4}
    assert decided[0].reason == "secret scanner: contains an AWS access key id"
    assert decided[1].reason.startswith("signal gate: too short")
    assert decided[3].reason == "secret scanner: contains a GitHub token"
    assert all("AKIA" not in (o.reason or "") and "ghp_" not in (o.reason or "")
               for o in decided.values())


def test_imported_records_skip_the_signal_gate_but_not_the_secret_scanner() -> None:
    rows, decided = plan('{"text": "Thanks!", "source": "import"}\n'
                         '{"text": "token AKIAIOSFODNN7EXAMPLE", "source": "import"}\n')
    assert [r.props["text"] for r in rows] == ["Thanks!"]
    assert list(decided) == [1]


def test_no_signal_gate_keeps_noise_but_never_secrets() -> None:
    rows, decided = plan('{"text": "ok"}\n{"text": "-----BEGIN RSA PRIVATE KEY-----"}\n',
                         signal_gate=False)
    assert [r.props["text"] for r in rows] == ["ok"]
    assert decided[1].reason == "secret scanner: contains a private key block"


def test_an_invalid_record_holding_a_secret_is_refused_without_the_field_or_value() -> None:
    with pytest.raises(InputError) as info:
        records.validate({"text": "fine", "kind": "AKIAIOSFODNN7EXAMPLE"}, "f", 3)
    assert str(info.value) == "f:3: rejected: contains an AWS access key id"


def test_skip_invalid_collects_every_bad_record() -> None:
    collector = records.Collector(skip_invalid=True)
    records.parse_records('{"text": "good one here"}\n{"txt": "typo"}\nnot json\n'
                          '{"text": "another good one"}\n', "f", collector=collector)
    assert [n.line for n in collector.records] == [1, 4]
    assert [(e.line, e.field) for e in collector.skipped] == [(2, "text"), (3, None)]


def test_a_memory_deleted_while_a_read_met_it_is_passed_over() -> None:
    from graphmem.base.rows import to_memories

    kept = {"memory": {"id": "m1", "text": "The cache is Redis", "scope": "s",
                       "kind": "semantic"}, "sessions": [], "entities": [], "supersedes": []}
    gone = {"memory": {"embedding": None}, "sessions": [], "entities": [], "supersedes": []}
    assert [m.id for m in to_memories([gone, kept, gone])] == ["m1"]
