"""The options every command shares (scope, clock, JSON), and a verb's declared
parameters as a command's arguments and options (`declared`)."""

from __future__ import annotations

import inspect
from typing import Annotated, Any

import typer
from pydantic import BaseModel

JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON on stdout.")]
NowOpt = Annotated[
    str | None,
    typer.Option("--now", help="The clock for this command (ISO-8601), e.g. 2023-05-08T13:56"),
]
ScopeOpt = Annotated[str | None, typer.Option("--scope", help="Namespace (default: settings).")]


def declared(model: type[BaseModel], names: tuple[str, ...], *,
             flags: dict[str, tuple[str, ...]] | None = None,
             types: dict[str, Any] | None = None,
             helps: dict[str, str] | None = None,
             unset: bool = False) -> dict[str, tuple[Any, Any]]:
    """Fields `names` of `model` (a verb's declaration, `graphmem.base.verbs`) as this
    command's options (a required one its argument, unless `unset`): --top-k for top_k
    unless `flags` names others, the help and default declared (None with `unset`: a
    change leaves out what it does not name), the value as typed unless `types` says how
    the command reads it (a date as text, say). Their bounds are the facade's to check,
    worded as at every door."""
    out: dict[str, tuple[Any, Any]] = {}
    for name in names:
        f = model.model_fields[name]
        kind = (types or {}).get(name, f.annotation)
        help_ = (helps or {}).get(name, f.description)
        if f.is_required() and not unset:  # a required value is the command's argument
            out[name] = (Annotated[kind, typer.Argument(help=help_)], inspect.Parameter.empty)
            continue
        names_ = (flags or {}).get(name, (f"--{name.replace('_', '-')}",))
        out[name] = (Annotated[kind, typer.Option(*names_, help=help_)],
                     None if unset else f.get_default(call_default_factory=True))
    return out


SkipInvalidOpt = Annotated[bool, typer.Option(
    "--skip-invalid", help="Write the valid records and list the invalid ones, instead of "
    "writing nothing.")]
AllowForgottenOpt = Annotated[bool, typer.Option(
    "--allow-forgotten", help="Write records whose id or text a hard forget removed "
    "(refused otherwise, so an old pack cannot bring them back).")]
