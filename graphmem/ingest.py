"""The write path: parse records, validate them, embed them, and write one batch atomically."""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from graphmem.embed import Embedder
from graphmem.errors import InputError
from graphmem.store import Store, run
from graphmem.types import CONFIDENCE_BY_SOURCE, MemoryIn, WriteOutcome, WriteReport


@dataclass(frozen=True)
class Numbered:
    """A record with the line (or array item) it came from, for error messages."""

    line: int
    record: MemoryIn


def normalise(text: str) -> str:
    """Text as compared for sameness: NFKC, case-folded, whitespace collapsed."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip().casefold()


def content_hash(text: str) -> str:
    """SHA-256 of the normalised text: equal for texts that differ only in case or spacing."""
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()


def generated_id(scope: str, text: str) -> str:
    """A stable id for a record that brings none: re-remembering the same text is idempotent."""
    digest = hashlib.sha256(f"{scope}\0{normalise(text)}".encode()).hexdigest()
    return f"m-{digest[:20]}"


def validate(obj: Any, source: str, line: int) -> MemoryIn:
    """Validate one decoded JSON value as a MemoryIn, or raise InputError naming line and field."""
    if not isinstance(obj, dict):
        raise InputError(f"expected a JSON object, got {type(obj).__name__}", source=source,
                         line=line)
    try:
        return MemoryIn.model_validate(obj)
    except ValidationError as e:
        err = e.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or None
        message = "missing" if err["type"] == "missing" else err["msg"]
        if err["type"] == "extra_forbidden":
            message = "unknown field"
        raise InputError(message.removeprefix("Value error, "), source=source, line=line,
                         field=field) from None


def parse_records(data: str, source: str = "<stdin>") -> list[Numbered]:
    """Parse one JSON object, a JSON array of objects, or NDJSON (one object per line)."""
    stripped = data.strip()
    if not stripped:
        raise InputError("no records given", source=source)
    if stripped[0] in "{[":
        try:
            whole = json.loads(stripped)
        except json.JSONDecodeError:
            whole = None  # not one document: read it as NDJSON below
        if isinstance(whole, list):
            return [Numbered(i + 1, validate(o, source, i + 1)) for i, o in enumerate(whole)]
        if isinstance(whole, dict):
            return [Numbered(1, validate(whole, source, 1))]
    out: list[Numbered] = []
    for number, raw in enumerate(data.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as e:
            raise InputError(f"malformed JSON: {e.msg} (column {e.colno})", source=source,
                             line=number) from None
        out.append(Numbered(number, validate(obj, source, number)))
    return out


def prepare(
    records: Sequence[Numbered],
    *,
    scope: str,
    now: datetime,
    added_by: str | None,
    source: str = "<stdin>",
) -> tuple[list[dict[str, Any]], list[int]]:
    """Turn validated records into query rows (without embeddings), one row per distinct id.

    Returns the rows and, for each input record, the index of the row it became.
    A caller-given id used twice in one batch is an error; identical texts without ids
    collapse into one row.
    """
    rows: list[dict[str, Any]] = []
    where: dict[str, int] = {}
    given_on: dict[str, int] = {}
    row_of: list[int] = []
    for item in records:
        r = item.record
        rscope = r.scope or scope
        if r.id is not None:
            if r.id in given_on:
                raise InputError(f"id {r.id!r} is already used on line {given_on[r.id]}",
                                 source=source, line=item.line, field="id")
            given_on[r.id] = item.line
        mid = r.id or generated_id(rscope, r.text)
        if rscope != scope:
            raise InputError(f"scope {rscope!r} differs from the batch's scope {scope!r}",
                             source=source, line=item.line, field="scope")
        if mid in where:
            row_of.append(where[mid])
            continue
        where[mid] = len(rows)
        row_of.append(len(rows))
        rows.append({
            "id": mid,
            "text": r.text,
            "kind": r.kind,
            "scope": rscope,
            "visibility": r.visibility,
            "importance": r.importance,
            "confidence": r.confidence if r.confidence is not None
            else CONFIDENCE_BY_SOURCE[r.source],
            "source": r.source,
            "tags": list(r.tags),
            "meta": {f"meta.{k}": v for k, v in r.metadata.items()},
            "created_at": r.created_at or now,
            "added_by": r.added_by or added_by,
            "content_hash": content_hash(r.text),
        })
    return rows, row_of


def write(
    store: Store,
    embedder: Embedder,
    records: Sequence[Numbered],
    *,
    scope: str,
    now: datetime,
    added_by: str | None = None,
    source: str = "<stdin>",
    progress: bool = False,
) -> WriteReport:
    """Embed and write a batch in one transaction: every record lands, or none does."""
    rows, row_of = prepare(records, scope=scope, now=now, added_by=added_by, source=source)
    vectors = embedder.embed([r["text"] for r in rows], progress=progress)
    for row, vector in zip(rows, vectors, strict=True):
        row["embedding"] = vector.tolist()

    def work(tx: Any) -> list[dict[str, Any]]:
        conflicts = run(tx, "ingest/scope_conflicts", ids=[r["id"] for r in rows], scope=scope)
        if conflicts:
            c = conflicts[0]
            line = next(n.line for n, i in zip(records, row_of, strict=True)
                        if rows[i]["id"] == c["id"])
            raise InputError(f"id {c['id']!r} already belongs to scope {c['scope']!r}",
                             source=source, line=line, field="id")
        return run(tx, "ingest/upsert_memories", rows=rows)

    created = {r["id"]: r["created"] for r in store.write_tx(work)}
    outcomes = []
    seen: set[str] = set()
    for item, index in zip(records, row_of, strict=True):
        mid = rows[index]["id"]
        status = "created" if created[mid] and mid not in seen else "updated"
        seen.add(mid)
        outcomes.append(WriteOutcome(id=mid, status=status, line=item.line))
    return WriteReport(scope=scope, outcomes=outcomes)
