"""Planning a write: records become rows — defaults applied, identity decided, gates
run, sessions and turn order checked, and every id the input references checked —
before anything is embedded or written."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import numpy as np

from graphmem.base.errors import InputError
from graphmem.base.gates import credential_reason, secret_reason, shown, signal_reason
from graphmem.base.options import WriteOptions
from graphmem.base.types import WriteOutcome
from graphmem.base.vocabulary import CONFIDENCE_BY_SOURCE
from graphmem.graph.keys import scope_key
from graphmem.graph.store import Store
from graphmem.write.forgotten import forget_key
from graphmem.write.records import Numbered, content_hash, generated_id, normalise


@dataclass
class Row:
    """One memory to write, with what the write path learns about it on the way."""

    index: int  # position in the input, for outcomes
    item: Numbered
    id: str
    by_content: bool  # identity is the text (dedup applies), not an id or a format key
    props: dict[str, Any]
    session: str | None  # Session id ("<scope>#<name>")
    session_name: str | None
    turn: int | None = None  # an explicit position in its session (`metadata.turn`)
    vector: np.ndarray | None = None
    #: The context its turn before in the same input makes, and its vector, made with
    #: the row's own (graphmem/write/contexts.py, `foresee`).
    context: str | None = None
    context_vector: np.ndarray | None = None
    status: str = "created"
    target: str | None = None  # for a confirmation: the memory confirmed
    entities: list[dict[str, str]] = field(default_factory=list)
    subjects: list[dict[str, str]] = field(default_factory=list)  # what it is about
    links: int = 0  # ASSOCIATED edges its write created (synaptic, and links it asked for)

    @property
    def written(self) -> bool:
        """Whether the write stores this row's own memory (not a confirmation)."""
        return self.status in ("created", "updated") and self.target is None

    @property
    def embedded(self) -> np.ndarray:
        """The row's vector: every row is embedded before it is compared or written."""
        if self.vector is None:
            raise RuntimeError(f"row {self.id} was not embedded")
        return self.vector


def session_id(scope: str, name: str) -> str:
    """The Session node id of session `name` in `scope` (sessions never span scopes)."""
    return f"{scope}#{name}"


def resolve(item: Numbered, index: int, opts: WriteOptions) -> Row:
    """Apply defaults (record > flag > format > built-in) and compute the identity."""
    r = item.record
    given = r.model_fields_set

    def pick(name: str, flag: Any, builtin: Any) -> Any:
        if name in given:
            return getattr(r, name)
        return flag if flag is not None else item.defaults.get(name, builtin)

    if r.scope is not None and r.scope != opts.scope:
        raise InputError(f"scope {shown(r.scope)} differs from the batch's scope "
                         f"{shown(opts.scope)}",
                         source=item.source, line=item.line, field="scope")
    kind = pick("kind", opts.kind, "episodic")
    name = pick("session", opts.session, None)
    if r.id is not None:
        mid, by_content = r.id, False
    elif item.key is not None:
        mid, by_content = generated_id(opts.scope, item.key), False
    else:
        mid, by_content = generated_id(opts.scope, normalise(r.text)), True
    created = r.created_at or opts.now
    props = {
        "id": mid,
        "text": r.text,
        "kind": kind,
        "scope": opts.scope,
        "scope_key": scope_key(opts.scope),
        "visibility": pick("visibility", opts.visibility, "public"),
        "importance": r.importance,
        "confidence": r.confidence if r.confidence is not None
        else CONFIDENCE_BY_SOURCE[r.source],
        "source": r.source,
        "tags": list(r.tags),
        "meta": {f"meta.{k}": v for k, v in r.metadata.items()},
        "created_at": created,
        "valid_until": r.valid_until,
        "added_by": r.added_by or opts.added_by,
        "content_hash": content_hash(r.text),
    }
    turn = r.metadata.get("turn") if name else None
    if turn is not None and (not isinstance(turn, int) or isinstance(turn, bool) or turn < 0):
        raise InputError("a turn's position is a whole number from 0", source=item.source,
                         line=item.line, field="metadata.turn")
    session = session_id(opts.scope, name) if name else None
    # An explicit position is written with the memory; the others are placed by arrival
    # once the memory exists (`fragments/append_turns`).
    props["position"] = turn
    props["session"] = session if turn is not None else None
    return Row(index=index, item=item, id=mid, by_content=by_content, props=props,
               session=session, session_name=name, turn=turn)


def gate(row: Row, signal_gate: bool) -> str | None:
    """Why a record may not be stored, or None. Secrets always: known credentials in its
    names, any secret in its content (docs/decisions.md, "The secret scanner is a
    function"); noise unless imported."""
    r = row.item.record
    found = chain((credential_reason(s) for s in r.names()),
                  (secret_reason(s) for s in r.strings()))
    if reason := next(filter(None, found), None):  # the first secret ends the scan
        return f"secret scanner: {reason}"
    if signal_gate and r.source != "import":
        reason = signal_reason(r.text)
        if reason:
            return f"signal gate: {reason}"
    return None


class Turns:
    """Checks that a conversation's order is an order: no two turns of a session at one
    position, and no turn in two sessions."""

    def __init__(self) -> None:
        self.at: dict[tuple[str, int], Row] = {}
        self.session_of: dict[str, Row] = {}

    def check(self, row: Row) -> None:
        """Raise InputError naming the record if `row` breaks the order."""
        if row.session is None or row.turn is None:
            return  # the same text said in two sessions confirms; only turns are placed
        item = row.item
        first = self.session_of.setdefault(row.id, row)
        if first.session != row.session:
            raise InputError(f"this turn is also in session {shown(first.session_name)} "
                             f"({_where(first.item)})", source=item.source, line=item.line,
                             field="session")
        other = self.at.setdefault((row.session, row.turn), row)
        if other.id != row.id:
            raise InputError(f"session {shown(row.session_name)} already has turn {row.turn} "
                             f"({_where(other.item)})", source=item.source, line=item.line,
                             field="metadata.turn")


def _where(item: Numbered) -> str:
    return ":".join(str(p) for p in (item.source, item.line) if p is not None)


def plan(records: Sequence[Numbered], opts: WriteOptions
         ) -> tuple[list[Row], dict[int, WriteOutcome]]:
    """Resolve and gate every record. Returns the rows to write, in input order, and the
    outcomes already known (rejections)."""
    rows: list[Row] = []
    decided: dict[int, WriteOutcome] = {}
    given_on: dict[str, Numbered] = {}
    turns = Turns()
    for index, item in enumerate(records):
        row = resolve(item, index, opts)
        turns.check(row)
        if item.record.id is not None:
            first = given_on.get(row.id)
            if first is not None:
                raise InputError(f"id {shown(row.id)} is already used on line {first.line}",
                                 source=item.source, line=item.line, field="id")
            given_on[row.id] = item
        reason = gate(row, opts.signal_gate)
        if reason:
            decided[index] = WriteOutcome(id=None, status="rejected", source=item.source,
                                          line=item.line, reason=reason)
            continue
        rows.append(row)
    return rows, decided


def refuse_forgotten(store: Store, rows: list[Row], decided: dict[int, WriteOutcome],
                     opts: WriteOptions) -> list[Row]:
    """The rows a hard forget did not remove: a record whose id has a tombstone in the
    scope, or whose text has (the same forget key: `write.forgotten`), is rejected, so an
    old pack or a reworded copy cannot bring it back, unless `opts.allow_forgotten`. A live
    memory that says what was forgotten keeps its text: its other fields may change."""
    if not rows or opts.allow_forgotten:
        return rows
    keys = {row.index: forget_key(row.props["text"]) for row in rows}
    # On the member that takes writes: a forget another process just made must hold.
    found = store.read_current("ingest/tombstones", scope=opts.scope, ids=[r.id for r in rows],
                       hashes=[r.props["content_hash"] for r in rows],
                       keys=sorted(set(keys.values())))
    ids = {t["id"] for t in found}
    hashes = {t["content_hash"] for t in found}
    said = {t["key"] for t in found}
    hit = [row for row in rows if row.id in ids or row.props["content_hash"] in hashes
           or keys[row.index] in said]
    if not hit:
        return rows
    live = {r["id"]: r["content_hash"] for r in store.read_current(
        "ingest/find_ids", ids=[row.id for row in hit if row.id not in ids], scope=opts.scope)}
    refused = {row.index for row in hit
               if row.id in ids or live.get(row.id) != row.props["content_hash"]}
    for row in rows:
        if row.index in refused:
            decided[row.index] = WriteOutcome(
                id=None, status="rejected", source=row.item.source, line=row.item.line,
                reason="forgotten for good (a hard forget); allow_forgotten "
                       "(--allow-forgotten) writes it again")
    return [row for row in rows if row.index not in refused]


def check_references(store: Store, rows: Sequence[Row], scope: str) -> None:
    """Before writing anything: supersedes and links must name memories of this scope
    (already stored, or in this input). An id names a memory within its scope, so what
    other scopes hold is neither seen nor told."""
    ours = {row.id for row in rows}
    wanted = {ref for row in rows for ref in references(row)} - ours
    found = {r["id"] for r in store.read_current("ingest/find_ids", ids=sorted(wanted),
                                                 scope=scope)} if wanted else set()
    for row in rows:
        item = row.item
        for field_name, ref in labelled_references(row):
            if ref == row.id:
                raise InputError("a memory cannot refer to itself", source=item.source,
                                 line=item.line, field=field_name)
            if ref not in ours and ref not in found:
                raise InputError(f"no memory has id {shown(ref)}", source=item.source,
                                 line=item.line, field=field_name)


def labelled_references(row: Row) -> list[tuple[str, str]]:
    r = row.item.record
    refs = [("supersedes", r.supersedes)] if r.supersedes else []
    return refs + [(f"links.{i}", link.id) for i, link in enumerate(r.link_list())]


def references(row: Row) -> list[str]:
    return [ref for _, ref in labelled_references(row)]
