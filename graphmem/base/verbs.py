"""Each verb's parameters, declared once: type, default, bounds and help, as the fields of
one pydantic model per verb (`RecallOptions` is recall's). Every door's form is made from
them (the CLI's options, `cli/declared.py`; the MCP tools' schemas, `mcp/tools.py`; the
service reads them through the facade), and the facade checks every call by them, so a
bound holds at every door and is worded one way (`errors.invalid`)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graphmem.base.errors import invalid
from graphmem.base.vocabulary import (
    AGENT_KIND,
    AGENT_SOURCE,
    CONTEXT_TOKENS,
    CONTEXT_TOP,
    ENTITIES,
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

    last: int = Field(SESSION_TURNS, ge=1, le=MAX_LISTED, description="How many turns.")


class EntitiesArgs(Declared):
    """`entities`: what a scope's memories name."""

    limit: int = Field(ENTITIES, ge=1, le=MAX_LISTED,
                       description="How many, most mentioned first.")


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
