"""The service's routes: /healthz, /readyz and the /v1 verbs, each checking the caller's
grant for the scope it names (`graphmem.base.grants`) before it reaches the store
(docs/service.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Body, Query
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, SkipValidation, create_model, field_validator

from graphmem.api import GraphMem
from graphmem.base import grants
from graphmem.base.errors import InputError
from graphmem.base.options import RecallOptions, parse
from graphmem.base.types import MAX_QUERY_CHARS, MemoryIn, MetaValue, RecallResult, WriteReport
from graphmem.base.verbs import VERBS, Verb, agent_written, described, run
from graphmem.graph import tokens
from graphmem.service.admission import Granted, Limits, ServiceError

# --- request bodies -----------------------------------------------------------------


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")
    scope: str | None = None

    @field_validator("*", mode="before")
    @classmethod
    def _whole_unicode(cls, value: Any) -> Any:
        # JSON's \ud800 escapes carry lone surrogates, which no store can encode (they
        # reached the driver and failed as 500s).
        if (where := _surrogate(value)) is not None:
            raise ValueError(f"holds a lone surrogate{where}, which is not Unicode text")
        return value


def _surrogate(value: Any, where: str = "") -> str | None:
    """Where in `value` (a JSON value) a string holds a lone surrogate ("" for the value
    itself, " at <key>…" inside it), or None."""
    if isinstance(value, str):
        return where if any("\ud800" <= c <= "\udfff" for c in value) else None
    if isinstance(value, list):
        items: Any = enumerate(value)
    elif isinstance(value, dict):
        items = value.items()
    else:
        return None
    for key, item in items:
        if (found := _surrogate(key, where) if isinstance(key, str) else None) is not None:
            return found
        if (found := _surrogate(item, f"{where}.{key}" if where else f" at {key}")) \
                is not None:
            return found
    return None


def _no_decay(schema: dict[str, Any]) -> None:
    schema["properties"].pop("decay", None)


class ServiceRecallOptions(RecallOptions):
    """RecallOptions as the service takes them: the decay curves are its configuration."""

    model_config = ConfigDict(json_schema_extra=_no_decay, title="RecallOptions")


# A field typed `SkipValidation[...]` is declared with the verb's own model, so the OpenAPI
# schema shows its fields and bounds, and is checked once: where the facade checks every
# door's call (with its one-line errors naming the record and field), not here as well.
class RememberBody(_Body):
    """One text, or records (MemoryIn fields), stored as one all-or-nothing batch."""

    text: str | None = None
    records: list[SkipValidation[MemoryIn]] | None = None
    session: str | None = None
    kind: str | None = None
    visibility: str | None = None


class RecallBody(_Body):
    """A query and any RecallOptions field (mode, top_k, hops, layers, filters, …)."""

    query: str = Field(max_length=MAX_QUERY_CHARS)
    options: Annotated[SkipValidation[ServiceRecallOptions], Field(default_factory=dict)]


class UpdateBody(_Body):
    """A memory's new text, kind, importance, tags or metadata."""

    id: str
    text: str | None = None
    kind: str | None = None
    importance: float | None = None
    tags: list[str] | None = None
    metadata: dict[str, SkipValidation[MetaValue]] | None = None


class DropScopeBody(_Body):
    """A whole scope to delete, always named: there is no default to drop by accident."""

    scope: str = Field(min_length=1)


def scope_of(g: tokens.Grant, scope: str | None, *, write: bool = False) -> str:
    """The scope a request acts on (its own, else the token's first), if its grant
    allows it, and for writing if `write`."""
    if write:
        grants.may_write(g.read_only)
    return grants.may_use(g.scopes, scope)


def router(mem: GraphMem, limits: Limits, table: tuple[Verb, ...] = VERBS) -> APIRouter:
    """The routes over `mem`, within `limits`: a route for each verb of `table` the
    service offers."""
    router = APIRouter()

    @router.get("/healthz")
    def healthz() -> dict[str, bool]:
        """The process answers."""
        return {"ok": True}

    @router.get("/readyz")
    def readyz() -> JSONResponse:
        """Neo4j answers and every index is online (503 otherwise)."""
        report = mem.doctor()
        ready = report.ok
        return JSONResponse({"ready": ready}, status_code=200 if ready else 503)

    # Each verb's route as the verb table declares it; a verb with no handler of its own
    # gets one made from its declared parameters (`made`).
    handlers = {**_writes(mem, limits), **_reads(mem)}
    for v in table:
        if v.http:
            method, path = v.http.split()
            doc, returned = described(GraphMem, v)
            handler = handlers.get(v.name) or made(mem, v, method, returned)
            router.add_api_route(path, handler, methods=[method], summary=v.title,
                                 description=doc)
    return router


def made(mem: GraphMem, verb: Verb, method: str, returned: Any) -> Callable[..., Any]:
    """The handler of a verb with none of its own: its declared parameters (and the
    scope) as the query (GET) or the body, its result (of type `returned`) as JSON,
    within the caller's grant."""
    assert verb.args is not None, f"{verb.name} declares no parameters"
    write = verb.effect != "read"
    model = create_model(f"{verb.args.__name__}Request", __base__=(_Body, verb.args))

    def handle(args: Any, g: Granted) -> Any:
        given = dict(args)
        scope = scope_of(g, given.pop("scope"), write=write)
        return run(mem, verb, given, scope)

    where = Query() if method == "GET" else Body()
    handle.__annotations__ = {"args": Annotated[model, where], "g": Granted,
                              "return": returned}
    return handle


def _reads(mem: GraphMem) -> dict[str, Callable[..., Any]]:
    """The handlers of the verbs that read with a route of their own (recall): any grant
    of the scope."""
    def recall(body: RecallBody, g: Granted) -> RecallResult:
        """The memories of the scope (and its permitted layers) that best answer a query."""
        scope = scope_of(g, body.scope)
        if not isinstance(body.options, dict):
            raise InputError("an object of recall options", field="options")
        options = dict(body.options)
        for key in options:
            if not RecallOptions.accepts(key) or key == "decay":  # decay: configured
                raise InputError("not a recall option here", field=f"options.{key}")
        grants.may_recall_with(g.read_only, options)
        checked = parse(RecallOptions, options)  # a wrong type is a 400 naming it
        for layer in checked.layers:
            scope_of(g, layer)
        return mem.recall(body.query, scope=scope, options=checked)

    return {"recall": recall}


def _writes(mem: GraphMem, limits: Limits) -> dict[str, Callable[..., Any]]:
    """The handlers of the verbs that write with a route of their own (remember, update,
    drop a scope): a grant that may write the scope."""
    def remember(body: RememberBody, g: Granted) -> WriteReport:
        """Store one text or a batch of records (all or nothing)."""
        scope = scope_of(g, body.scope, write=True)
        if (body.text is None) == (body.records is None):
            raise InputError("give text or records", field="text")
        if body.records is not None and len(body.records) > limits.max_batch:
            raise ServiceError(413, f"{len(body.records)} records; at most "
                                    f"{limits.max_batch} a request")
        records: list[Any] = ([{"text": body.text}] if body.text is not None
                              else body.records or [])
        for i, r in enumerate(records):
            if not isinstance(r, dict):
                raise InputError("a record is an object of MemoryIn's fields",
                                 field=f"records.{i}")
            if r.get("scope") is not None:
                scope_of(g, str(r["scope"]), write=True)
                if r["scope"] != scope:
                    raise InputError("a record's scope must be the request's",
                                     field=f"records.{i}.scope")
        return mem.remember([agent_written(r, body.kind) for r in records], scope=scope,
                            session=body.session, visibility=body.visibility,
                            source="<http>")

    def update(body: UpdateBody, g: Granted) -> WriteReport:
        """Change a memory in place (a new text keeps the old as a version)."""
        scope = scope_of(g, body.scope, write=True)
        return mem.update(body.id, scope=scope, text=body.text, kind=body.kind,
                          importance=body.importance, tags=body.tags, metadata=body.metadata)

    def drop_scope(body: DropScopeBody, g: Granted) -> dict[str, Any]:
        """Delete a whole scope for good (a user's whole memory): its memories, versions,
        tombstones, sessions, entities and indexes of its own. A writer's token only."""
        scope = scope_of(g, body.scope, write=True)
        return {"scope": scope, "deleted": mem.drop_scope(scope)}

    return {"remember": remember, "update": update, "drop_scope": drop_scope}
