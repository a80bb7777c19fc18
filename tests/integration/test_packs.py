"""Packs: export a scope as JSONL records, import them into another scope (renamed ids),
mount that scope as a read-only layer, and import again without duplicates."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from graphmem.api import GraphMem
from graphmem.base.errors import InputError
from graphmem.graph.store import Store
from graphmem.lifecycle.packs import to_line

T0 = datetime(2024, 3, 1, tzinfo=UTC)


def _fill(mem: GraphMem) -> None:
    mem.ops.core.fixed_now = T0
    mem.remember([
        {"id": "db", "text": "The orders database is PostgreSQL 16 on db-main",
         "kind": "semantic", "tags": ["infra"], "metadata": {"team": "core", "tier": 1},
         "session": "kickoff", "importance": 0.8},
        {"id": "deploy", "text": "To deploy, merge to main and approve the Argo sync",
         "kind": "procedural", "session": "kickoff", "links": [{"id": "db", "weight": 0.9}]},
        {"id": "promo", "text": "The spring discount code SPRING24 runs until April",
         "valid_until": "2024-04-30T00:00:00Z", "visibility": "private"},
    ])
    mem.remember({"id": "db2", "text": "The orders database moved to PostgreSQL 17 on db-new",
                  "kind": "semantic", "supersedes": "db"})


def _export(mem: GraphMem, path: Path, **flags) -> list[dict]:
    path.write_text("".join(to_line(r) + "\n" for r in mem.export(**flags)), encoding="utf-8")
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_pack_round_trips_into_another_scope_and_mounts_as_a_layer(
        mem: GraphMem, scope: str, tmp_path: Path, store: Store) -> None:
    _fill(mem)
    pack = tmp_path / "pack.jsonl"
    lines = _export(mem, pack)
    by_id = {r["id"]: r for r in lines}
    assert set(by_id) == {"db", "deploy", "promo", "db2"}
    assert by_id["db"]["metadata"] == {"team": "core", "tier": 1}
    assert by_id["db"]["session"] == "kickoff" and by_id["db"]["importance"] == 0.8
    assert by_id["db2"]["supersedes"] == "db"
    assert by_id["deploy"]["links"] == [{"id": "db", "weight": 0.9}]
    assert by_id["promo"]["valid_until"] == "2024-04-30T00:00:00Z"
    assert "scope" not in by_id["db"] and "embedding" not in by_id["db"]

    shared, reader = scope + "-shared", scope + "-reader"
    try:
        report = mem.import_pack(pack, scope=shared, id_prefix="shared/")
        assert report.counts == {"created": 4}
        copies = {m.id: m for m in mem.get(scope=shared, ids=[
            "shared/db", "shared/deploy", "shared/promo", "shared/db2"])}
        assert copies["shared/db"].metadata == {"team": "core", "tier": 1}
        assert copies["shared/db"].sessions == ["kickoff"]
        assert copies["shared/db2"].supersedes == ["shared/db"]
        assert copies["shared/promo"].visibility == "private"
        assert copies["shared/db"].created_at == T0
        links = store.driver.execute_query(
            "MATCH (:Memory {id: 'shared/deploy'})-[r:ASSOCIATED {kind: 'manual'}]-"
            "(o:Memory) RETURN o.id AS id, r.weight AS w", database_=store.database)
        assert [(r["id"], r["w"]) for r in links.records] == [("shared/db", 0.9)]

        # The same pack again: the same memories, updated in place.
        assert mem.import_pack(pack, scope=shared, id_prefix="shared/").counts == {
            "updated": 4}

        # Mounted read-only by a third scope: public memories only, scored × 0.8.
        hits = mem.recall("how do I deploy?", scope=reader, layers=[shared], hops=0,
                          reinforce=False).hits
        assert hits and hits[0].id == "shared/deploy" and hits[0].layer == 0.8
        assert "shared/promo" not in {h.id for h in mem.recall(
            "spring discount code", scope=reader, layers=[shared], hops=0,
            reinforce=False).hits}
    finally:
        for s in (shared, reader):
            mem.drop_scope(s)


def test_export_leaves_out_what_left_the_active_lifecycle_unless_asked(
        mem: GraphMem, tmp_path: Path) -> None:
    _fill(mem)
    mem.ops.core.fixed_now = datetime(2024, 6, 1, tzinfo=UTC)
    mem.sweep()  # db is shadowed by db2; promo's TTL archives it
    active = _export(mem, tmp_path / "a.jsonl")
    assert {r["id"] for r in active} == {"deploy", "db2"}
    assert "supersedes" not in next(r for r in active if r["id"] == "db2")  # db is not in it
    assert not [r for r in active if r.get("links")]  # nor is the link's other end
    everything = _export(mem, tmp_path / "b.jsonl", include_shadowed=True,
                         include_archived=True)
    assert {r["id"] for r in everything} == {"db", "deploy", "promo", "db2"}


def test_a_bad_pack_names_its_line_and_writes_nothing(mem: GraphMem, tmp_path: Path) -> None:
    pack = tmp_path / "bad.jsonl"
    pack.write_text('{"id": "a", "text": "The build cache lives on the NFS share"}\n'
                    '{"id": "b", "text": "x", "kind": "gossip"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.jsonl:2.*kind"):
        mem.import_pack(pack)
    assert mem.get(["a"]) == []
    pack.write_text('{"id": "' + "x" * 195 + '", "text": "A long id that a prefix '
                    'pushes over the limit"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.jsonl:1.*id"):
        mem.import_pack(pack, id_prefix="toolong/")
