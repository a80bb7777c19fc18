"""Packs: a scope's memories as JSONL records that `remember` accepts, so a scope can be
backed up, moved, or shared and mounted read-only as a layer by other scopes.

A pack carries content and provenance (text, kind, importance, confidence, source, tags,
metadata, times, session, supersession, manual links), not usage: access counts,
stability and co-retrieval links start afresh where it is imported, and entities and
synaptic links are derived again by the write path.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from graphmem.base.errors import InputError
from graphmem.base.rows import to_memory
from graphmem.base.types import LinkIn, MemoryIn, MemoryOut
from graphmem.graph.store import Store
from graphmem.write import formats
from graphmem.write.records import Collector, Numbered, validate


def export(store: Store, scope: str, *, shadowed: bool = False, archived: bool = False,
           versions: bool = False) -> Iterator[MemoryIn]:
    """The active memories of `scope` as records, oldest first, with its shadowed and
    archived ones if asked."""
    lifecycles = ["active", *(["shadowed"] if shadowed else []),
                  *(["archived"] if archived else [])]
    for row in store.stream("admin/export_scope", scope=scope, lifecycles=lifecycles,
                            versions=versions):
        if row["memory"].get("id") is not None:  # not one forgotten as the export read it
            yield as_record(to_memory(row), row["links"])


def read_pack(source: str | Path | Iterable[MemoryIn | dict[str, Any]], *,
              id_prefix: str | None = None,
              skip_invalid: bool = False) -> tuple[list[Numbered], list[InputError]]:
    """A pack's records (from a JSONL file, or given) with `id_prefix` before their ids,
    and the errors of those skipped (with `skip_invalid`)."""
    collector = Collector(skip_invalid)
    if isinstance(source, str | Path):
        formats.read(Path(source), "records", collector)
    else:
        collector.extend(source)
    records = collector.records
    return (with_prefix(records, id_prefix) if id_prefix else records), collector.skipped


def write_pack(records: Iterable[MemoryIn], out: Path) -> int:
    """Write `records` to the pack file `out` and return how many. The file is written
    beside its place and moved there whole, so a failed export never leaves half a pack
    under the name asked for; a file that cannot be written is an InputError."""
    part = out.with_name(out.name + ".part")
    try:
        sink = part.open("w", encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot write: {e}", source=str(out)) from None
    n = 0
    try:
        with sink:
            for record in records:
                sink.write(to_line(record) + "\n")
                n += 1
        part.replace(out)
    finally:
        part.unlink(missing_ok=True)
    return n


def to_line(record: MemoryIn) -> str:
    """One pack line: the record's JSON without empty fields."""
    data = record.model_dump(mode="json", exclude_none=True)
    return json.dumps({k: v for k, v in data.items() if v not in ([], {})},
                      ensure_ascii=False)


def as_record(m: MemoryOut, links: list[dict[str, Any]]) -> MemoryIn:
    """A stored memory as the record that writes it again (without its scope, so the
    importer chooses one)."""
    return MemoryIn(
        id=m.id, text=m.text, kind=m.kind, visibility=m.visibility,
        importance=m.importance if m.importance is not None else 0.5,
        confidence=m.confidence, source=m.source or "import", tags=m.tags,
        metadata=m.metadata, created_at=m.created_at, valid_until=m.valid_until,
        added_by=m.added_by,
        session=m.session or (m.sessions[0] if m.sessions else None),
        supersedes=m.supersedes[0] if m.supersedes else None,
        links=[LinkIn(id=link["id"], weight=link["weight"]) for link in links])


def with_prefix(records: Sequence[Numbered], prefix: str) -> list[Numbered]:
    """The records with `prefix` before every id they hold or point at, so one pack can
    live in several scopes (an id belongs to one scope). Checked again, line by line."""
    out = []
    for n in records:
        r = n.record
        changes: dict[str, Any] = {}
        if r.id:
            changes["id"] = prefix + r.id
        if r.supersedes:
            changes["supersedes"] = prefix + r.supersedes
        if r.links:
            changes["links"] = [{"id": prefix + x} if isinstance(x, str)
                                else {"id": prefix + x.id, "weight": x.weight} for x in r.links]
        data = r.model_dump(exclude_unset=True) | changes
        out.append(replace(n, record=validate(data, n.source, n.line)))
    return out
