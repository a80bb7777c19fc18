"""Each verb's parameters, declared once: type, default, bounds and help, as the fields of
one pydantic model per verb (`RecallOptions` is recall's). Every door's form is made from
them (the CLI's options, `cli/declared.py`; the MCP tools' schemas, `mcp/tools.py`; the
service reads them through the facade), and the facade checks every call by them, so a
bound holds at every door and is worded one way (`errors.invalid`)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Self, TypeVar, get_type_hints

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError

from graphmem.base.errors import invalid
from graphmem.base.vocabulary import (
    AGENT_KIND,
    AGENT_SOURCE,
    CONTEXT_TOKENS,
    CONTEXT_TOP,
    ENTITIES,
    HUB_LIMIT,
    LINK_TAU_DAYS,
    MAX_CONTEXT_TOKENS,
    MAX_CONTEXT_TOP,
    MAX_LISTED,
    MIN_CONTEXT_TOKENS,
    SESSION_TURNS,
)

F = TypeVar("F", bound=Callable[..., Any])


class Declared(BaseModel):
    """A verb's parameters; `check` is the one place a call's values are held to them."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    @classmethod
    def check(cls, **values: Any) -> Self:
        """`values` held to the declaration: an InputError naming the first wrong one."""
        try:
            return cls.model_validate(values)
        except ValidationError as e:
            raise invalid(e) from None


class ContextArgs(Declared):
    """`context`: L0 and L1 of a scope."""

    top: int = Field(CONTEXT_TOP, ge=1, le=MAX_CONTEXT_TOP,
                     description="At most this many memories (L1).")
    max_tokens: int = Field(CONTEXT_TOKENS, ge=MIN_CONTEXT_TOKENS, le=MAX_CONTEXT_TOKENS,
                            description="Token budget of the block.")


class SessionArgs(Declared):
    """`session`: a conversation's last turns."""

    session: str = Field(description="The conversation or run.")
    last: int = Field(SESSION_TURNS, ge=1, le=MAX_LISTED, description="How many turns.")


class EntitiesArgs(Declared):
    """`entities`: what a scope's memories name."""

    limit: int = Field(ENTITIES, ge=1, le=MAX_LISTED,
                       description="How many, most mentioned first.")


#: A memory's id: `memory_id` at the CLI and MCP, `id` in an HTTP body or query.
MemoryId = Annotated[str, Field(validation_alias=AliasChoices("id", "memory_id"),
                                description="The memory's id.")]


class HistoryArgs(Declared):
    """`history`: a memory's versions."""

    memory_id: MemoryId


class ForgetArgs(Declared):
    """`forget`: archive a memory, or delete it for good."""

    memory_id: MemoryId
    hard: bool = Field(False, description=(
        "Delete for good (only a tombstone without the text stays). Default: archive."))


class FeedbackArgs(Declared):
    """`feedback`: whether a recalled memory helped."""

    memory_id: MemoryId
    used: bool = Field(description="True if it helped (an echo), false if not (a fizzle).")


class ConsolidateArgs(Declared):
    """`consolidate`: nothing besides the scope."""


class SweepOptions(BaseModel):
    """Thresholds of one sweep; the defaults are graphmem's defaults."""

    cold_below: float = Field(0.1, ge=0.0, le=1.0, description=(
        "Retention under which a memory leaves the vector index."))
    stub_below: float = Field(0.05, ge=0.0, le=1.0, description=(
        "Retention under which a cold memory gains a summary."))
    archive_after_days: float | None = Field(None, gt=0, description=(
        "Archive active memories older than this (default: never)."))
    #: Off by default: decay-driven forgetting buries old answers (docs/decisions.md).
    archive_below: float | None = Field(None, ge=0.0, le=1.0, description=(
        "Archive active memories with retention under this (default: never)."))
    summary_chars: int = Field(160, ge=20)
    link_tau_days: float = Field(LINK_TAU_DAYS, gt=0)
    prune_below: float = Field(0.02, ge=0.0, le=1.0)
    batch: int = Field(1000, ge=1)
    consolidate: bool = True
    #: Episodic memories this old (days) or older may be consolidated.
    consolidate_after_days: float = Field(7.0, ge=0)
    group_min: int = Field(3, ge=2)
    group_max: int = Field(8, ge=2)  # members quoted in one summary
    max_groups: int = Field(200, ge=1)
    hub_limit: int = Field(HUB_LIMIT, ge=3)
    #: A semantic memory this similar to a group's summary is confirmed, not duplicated.
    covered_above: float = Field(0.85, gt=0, le=1.0)
    reflect: bool = True
    #: Importance written since the last reflection that calls for a new one.
    reflect_after: float = Field(10.0, gt=0)


def agent_written(record: Mapping[str, Any], kind: str | None = None) -> dict[str, Any]:
    """`record` as an agent's door (MCP, the service, the LangGraph store) stores it: the
    kind and source it names, else `kind` or an agent's (docs/decisions.md, "What an
    agent stores is a semantic memory by the agent")."""
    return {**record, "kind": record.get("kind") or kind or AGENT_KIND,
            "source": record.get("source") or AGENT_SOURCE}


def parameter(model: type[BaseModel], name: str, *, annotation: Any = None,
              default: Any = inspect.Parameter.empty, optional: bool = False,
              help: str | None = None) -> tuple[Any, Any]:
    """Field `name` of `model` as a door's parameter: its type carrying its bounds and
    help (as `annotation`, where a door reads the value in another form), and its default
    (an agent's door may give its own; an `optional` one is None: left as it is)."""
    f = model.model_fields[name]
    kind = f.annotation if annotation is None else annotation
    typed: Any = Annotated[(kind, *f.metadata)] if f.metadata else kind
    if optional:
        typed, default = typed | None, None
    typed = Annotated[typed, Field(description=help or f.description)]
    if default is inspect.Parameter.empty and not f.is_required():
        default = f.get_default(call_default_factory=True)
    return typed, default


def declared(params: Mapping[str, tuple[Any, Any]]) -> Callable[[F], F]:
    """A door's function that takes `params` ({name: (annotation, default)}) besides its
    own, as keyword arguments: its signature says so, which is what the CLI and the MCP
    SDK build their forms from."""
    def wrap(fn: F) -> F:
        # Evaluated: a signature set by hand is read as it is, strings and all.
        sig = inspect.signature(fn, eval_str=True)
        whole = sig.parameters.values()
        own = [p for p in whole if p.kind is not inspect.Parameter.VAR_KEYWORD]
        rest = [p.name for p in whole if p.kind is inspect.Parameter.VAR_KEYWORD]
        added = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                   annotation=annotation)
                 for name, (annotation, default) in params.items()]
        fn.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            own + added, return_annotation=sig.return_annotation)
        fn.__annotations__ = {**fn.__annotations__,
                              **{p.name: p.annotation for p in added}}
        for name in rest:
            fn.__annotations__.pop(name, None)
        return fn
    return wrap


@dataclass(frozen=True)
class Verb:
    """One verb of the facade, declared once: its title, what it does to a memory, and
    the name each door gives it (None: that door does not offer it). The MCP tools and
    the HTTP routes are registered from this table; the CLI's commands are held to it
    (tests/unit/test_verbs.py)."""

    name: str  # GraphMem's method (`ops.` for an operator's)
    title: str
    #: "read" (recall counts as one: what it writes is the memories' own use), "write",
    #: or "destructive" (what it removes does not come back).
    effect: Literal["read", "write", "destructive"]
    idempotent: bool
    cli: str | None = None
    mcp: str | None = None
    http: str | None = None  # "POST /v1/recall"
    #: Its parameters besides the scope: a door with no handler of its own for this verb
    #: makes one from them (`run` calls it; tests/integration/test_verb_doors.py).
    args: type[Declared] | None = None


#: The verbs, an agent's first (the MCP tools are listed in this order).
VERBS: tuple[Verb, ...] = (
    Verb("remember", "Remember", "write", False, "remember", "memory_store",
         "POST /v1/remember"),
    Verb("recall", "Recall", "read", True, "recall", "memory_recall", "POST /v1/recall"),
    Verb("update", "Correct a memory", "write", True, "update", "memory_update",
         "POST /v1/update"),
    Verb("forget", "Forget", "destructive", True, "forget", "memory_forget",
         "POST /v1/forget", ForgetArgs),
    Verb("ops.consolidate", "Consolidate", "write", False, mcp="memory_consolidate",
         args=ConsolidateArgs),
    Verb("feedback", "Say whether a memory helped", "write", False, "feedback",
         "memory_feedback", "POST /v1/feedback", FeedbackArgs),
    Verb("context", "What you know, in brief", "read", True, "context", "memory_context",
         "GET /v1/context", ContextArgs),
    Verb("session_turns", "A conversation's last turns", "read", True, "session",
         "memory_session", "GET /v1/session", SessionArgs),
    Verb("entities", "What your memories name", "read", True, "entities",
         "memory_entities", "GET /v1/entities", EntitiesArgs),
    Verb("links", "Why a memory is connected", "read", True, mcp="memory_links"),
    Verb("get", "Read memories by id", "read", True, "get", "memory_get"),
    Verb("ingest", "Ingest files", "write", True, "ingest"),
    Verb("history", "A memory's versions", "read", True, "history", "memory_history",
         "GET /v1/history", HistoryArgs),
    Verb("add_link", "Link two memories", "write", True, "link"),
    Verb("sweep", "Maintain", "write", True, "sweep"),
    Verb("overview", "Counts", "read", True, "overview"),
    Verb("export", "Read a scope's memories as records", "read", True),
    Verb("export_pack", "Export a pack", "read", True, "export"),
    Verb("import_pack", "Import a pack", "write", True, "import"),
    Verb("drop_scope", "Delete a whole scope", "destructive", True, "drop-scope",
         http="POST /v1/drop_scope"),
    Verb("ops.reembed", "Move a scope to this model", "write", True, "reembed"),
    Verb("doctor", "Check the server", "read", True, "doctor"),
    Verb("init", "Install the schema", "write", True, "init"),
)


def verb(name: str) -> Verb:
    """The verb of facade method `name`."""
    return next(v for v in VERBS if v.name == name)


def method(facade: Any, verb: Verb) -> Callable[..., Any]:
    """The facade's method (`facade` a GraphMem, or its class) that `verb` calls."""
    owner, _, name = verb.name.rpartition(".")
    if owner:  # of the class: the type its attribute is declared with
        facade = (get_type_hints(facade)[owner] if isinstance(facade, type)
                  else getattr(facade, owner))
    return getattr(facade, name)


def run(facade: Any, verb: Verb, args: Mapping[str, Any], scope: str) -> Any:
    """Verb `verb` called on `facade` (a GraphMem) in `scope` with `args`, held to its
    declaration: what a door made from the table answers."""
    assert verb.args is not None, verb.name
    return method(facade, verb)(**dict(verb.args.check(**args)), scope=scope)


def described(facade: type, verb: Verb) -> tuple[str, Any]:
    """What `verb` does and returns, for a door's help and schema: its facade method's
    docstring and return type."""
    called = method(facade, verb)
    return (inspect.cleandoc(called.__doc__ or verb.title),
            get_type_hints(called).get("return", Any))
