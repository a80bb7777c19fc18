"""Records as callers hand them in: parse JSON / NDJSON, validate, and say exactly where
anything is wrong (source, line, field). No server, no model."""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from graphmem.base.errors import InputError, invalid
from graphmem.base.gates import secret_reason
from graphmem.base.types import MemoryIn


@dataclass(frozen=True)
class Numbered:
    """A validated record and where it came from, for messages and stable ids.

    `key` is a format's stable identity for the record (a LoCoMo turn's dia_id, a Markdown
    paragraph's place), so re-ingesting a file updates the same memories. `defaults` are a
    format's own defaults (documents are semantic), weaker than the command's flags.
    """

    line: int | None
    record: MemoryIn
    source: str = "<stdin>"
    key: str | None = None
    defaults: Mapping[str, Any] = field(default_factory=dict)


class Collector:
    """Validates records one by one: raises on the first bad one, or (with `skip_invalid`)
    keeps going and remembers every skipped record's error."""

    def __init__(self, skip_invalid: bool = False) -> None:
        self.skip_invalid = skip_invalid
        self.records: list[Numbered] = []
        self.skipped: list[InputError] = []

    def fail(self, error: InputError) -> None:
        """Record a bad record: raise it, or keep it for the report when skipping."""
        if not self.skip_invalid:
            raise error
        self.skipped.append(error)

    def add(self, obj: Any, source: str, line: int | None, *, where: str | None = None,
            key: str | None = None, defaults: Mapping[str, Any] | None = None) -> None:
        """Validate one decoded JSON value and keep it (or fail). `where` prefixes fields."""
        try:
            record = validate(obj, source, line, where=where)
        except InputError as e:
            self.fail(e)
            return
        self.records.append(Numbered(line, record, source, key, defaults or {}))

    def extend(self, items: Iterable[str | MemoryIn | Mapping[str, Any]],
               source: str = "<api>") -> None:
        """Keep records given as values, numbered from 1: a text, a MemoryIn, or a mapping
        to validate."""
        for i, item in enumerate(items, start=1):
            if isinstance(item, MemoryIn):
                self.records.append(Numbered(i, item, source))
            else:
                self.add({"text": item} if isinstance(item, str) else item, source, i)


def normalise(text: str) -> str:
    """Text as compared for sameness: NFKC, case-folded, whitespace collapsed."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip().casefold()


def content_hash(text: str) -> str:
    """SHA-256 of the normalised text: equal for texts that differ only in case or spacing."""
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()


def generated_id(scope: str, identity: str) -> str:
    """A stable id from a scope and an identity (the normalised text, or a format's key)."""
    digest = hashlib.sha256(f"{scope}\0{identity}".encode()).hexdigest()
    return f"m-{digest[:20]}"


#: How deeply a record's JSON may nest (a record is flat but for lists and links).
MAX_DEPTH = 8


def strings_of(obj: Any, depth: int = 0) -> list[str]:
    """Every string in a decoded JSON value, keys included; ValueError when it nests
    deeper than MAX_DEPTH or holds text that is not valid Unicode."""
    if depth > MAX_DEPTH:
        raise ValueError(f"nested more than {MAX_DEPTH} levels deep")
    if isinstance(obj, str):
        try:
            obj.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("text holds an unpaired surrogate (not valid Unicode)") from None
        return [obj]
    if isinstance(obj, dict):
        return [s for k, v in obj.items() for s in (*strings_of(k, depth + 1),
                                                     *strings_of(v, depth + 1))]
    if isinstance(obj, list | tuple):
        return [s for v in obj for s in strings_of(v, depth + 1)]
    return []


def validate(obj: Any, source: str, line: int | None, *, where: str | None = None) -> MemoryIn:
    """Validate one decoded JSON value as a MemoryIn, or raise InputError naming line and field.

    A record holding a secret is refused without saying which field held it, so the
    message cannot echo the secret back.
    """
    if not isinstance(obj, dict):
        raise InputError(f"expected a JSON object, got {type(obj).__name__}", source=source,
                         line=line, field=where)
    try:
        strings = strings_of(obj)
    except ValueError as e:
        raise InputError(str(e), source=source, line=line, field=where) from None
    try:
        return MemoryIn.model_validate(obj)
    except ValidationError as e:
        reason = next(filter(None, map(secret_reason, strings)), None)
        if reason:
            raise InputError(f"rejected: {reason}", source=source, line=line,
                             field=where) from None
        raise invalid(e, source=source, line=line, where=where) from None


def parse_records(data: str, source: str = "<stdin>", *,
                  collector: Collector | None = None) -> list[Numbered]:
    """Parse one JSON object, a JSON array of objects, or NDJSON (one object per line)."""
    into = collector or Collector()
    stripped = data.lstrip("\ufeff").strip()  # a byte-order mark is not content
    if not stripped:
        raise InputError("no records given", source=source)
    if stripped[0] in "{[":
        try:
            whole = json.loads(stripped)
        except json.JSONDecodeError:
            whole = None  # not one document: read it as NDJSON below
        except RecursionError:
            raise InputError(f"JSON nested more than {MAX_DEPTH} levels deep",
                             source=source, line=1) from None
        if isinstance(whole, list):
            for i, obj in enumerate(whole):
                into.add(obj, source, i + 1)
            return into.records
        if isinstance(whole, dict):
            into.add(whole, source, 1)
            return into.records
    for number, raw in enumerate(data.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw.lstrip("\ufeff") if number == 1 else raw)
        except json.JSONDecodeError as e:
            into.fail(InputError(f"malformed JSON: {e.msg} (column {e.colno})", source=source,
                                 line=number))
            continue
        except RecursionError:
            into.fail(InputError(f"JSON nested more than {MAX_DEPTH} levels deep",
                                 source=source, line=number))
            continue
        into.add(obj, source, number)
    return into.records
