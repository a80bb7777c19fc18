"""Parsing and validating what callers hand in (no server)."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

from graphmem import ingest
from graphmem.errors import InputError
from graphmem.types import MAX_TEXT_CHARS, MemoryIn, canonical_kind

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
        ingest.validate(record, "notes.jsonl", 7)
    assert info.value.line == 7
    assert info.value.field == field
    assert message in str(info.value)
    assert str(info.value).startswith(f"notes.jsonl:7: field '{field}'")


def test_ndjson_reports_the_failing_line() -> None:
    data = '{"text": "first memory"}\n\n{"text": "second"\n{"text": "third"}\n'
    with pytest.raises(InputError, match=r"^in.ndjson:3: malformed JSON"):
        ingest.parse_records(data, "in.ndjson")


def test_ndjson_line_that_is_not_an_object() -> None:
    with pytest.raises(InputError, match=r"^-:2: expected a JSON object, got list"):
        ingest.parse_records('{"text": "a memory"}\n[1, 2]\n', "-")


def test_single_object_array_and_ndjson_all_parse() -> None:
    one = ingest.parse_records('{\n  "text": "pretty printed"\n}\n')
    many = ingest.parse_records('[{"text": "a"}, {"text": "b"}]')
    nd = ingest.parse_records('{"text": "a"}\n\n{"text": "b"}\n')
    assert [r.record.text for r in one] == ["pretty printed"]
    assert [(r.line, r.record.text) for r in many] == [(1, "a"), (2, "b")]
    assert [(r.line, r.record.text) for r in nd] == [(1, "a"), (3, "b")]


def test_empty_input_is_an_error() -> None:
    with pytest.raises(InputError, match="no records"):
        ingest.parse_records("  \n")


def test_generated_ids_are_stable_and_ignore_case_and_spacing() -> None:
    a = ingest.generated_id("s", "The cache  layer is Redis")
    assert a == ingest.generated_id("s", "the cache layer is redis ")
    assert a != ingest.generated_id("other", "The cache layer is Redis")
    assert ingest.content_hash("A  b") == ingest.content_hash("a b")


def test_prepare_defaults_confidence_by_provenance_and_keeps_given_values() -> None:
    records = ingest.parse_records(
        '{"text": "user said it"}\n'
        '{"text": "agent guessed it", "source": "agent"}\n'
        '{"text": "explicit", "source": "agent", "confidence": 0.9, "added_by": "bob"}\n'
    )
    rows, _ = ingest.prepare(records, scope="s", now=NOW, added_by="cfg")
    assert [r["confidence"] for r in rows] == [0.7, 0.6, 0.9]
    assert [r["added_by"] for r in rows] == ["cfg", "cfg", "bob"]
    assert all(r["created_at"] == NOW for r in rows)


def test_prepare_stores_metadata_as_prefixed_properties() -> None:
    records = ingest.parse_records('{"text": "t", "metadata": {"file": "a.py", "line": 3}}')
    rows, _ = ingest.prepare(records, scope="s", now=NOW, added_by=None)
    assert rows[0]["meta"] == {"meta.file": "a.py", "meta.line": 3}


def test_prepare_rejects_a_repeated_explicit_id() -> None:
    records = ingest.parse_records('{"id": "x", "text": "one"}\n{"id": "x", "text": "two"}\n')
    with pytest.raises(InputError, match=r"^f:2: field 'id': id 'x' is already used on line 1"):
        ingest.prepare(records, scope="s", now=NOW, added_by=None, source="f")


def test_prepare_collapses_identical_texts_without_ids() -> None:
    records = ingest.parse_records('{"text": "same thing"}\n{"text": "Same  thing"}\n')
    rows, row_of = ingest.prepare(records, scope="s", now=NOW, added_by=None)
    assert len(rows) == 1
    assert row_of == [0, 0]


def test_prepare_rejects_a_record_for_another_scope() -> None:
    records = ingest.parse_records('{"text": "t", "scope": "elsewhere"}')
    with pytest.raises(InputError, match="field 'scope'"):
        ingest.prepare(records, scope="here", now=NOW, added_by=None)
