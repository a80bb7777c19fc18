"""The command of a verb that has none of its own, made from its row of the verb table
(`graphmem.base.verbs.VERBS`): its declared parameters as arguments and options, its
result printed as JSON (MCP and the service make theirs the same way)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import TypeAdapter

from graphmem.base import verbs
from graphmem.cli.options import JsonOpt, NowOpt, ScopeOpt, declared
from graphmem.cli.output import emit, handled, open_memory


def command(verb: verbs.Verb) -> Callable[..., None]:
    """A command that runs `verb` in the scope and at the time its flags give."""
    assert verb.args is not None, f"{verb.name} declares no parameters"

    @handled
    @verbs.declared({**declared(verb.args, tuple(verb.args.model_fields)),
                     "scope": (ScopeOpt, None), "now": (NowOpt, None),
                     "as_json": (JsonOpt, False)})
    def run(**given: Any) -> None:
        scope, now, as_json = given.pop("scope"), given.pop("now"), given.pop("as_json")
        with open_memory(scope, now) as mem:
            result = TypeAdapter(Any).dump_python(
                verbs.run(mem, verb, given, mem.settings.scope), mode="json")
        emit(result, as_json, lambda c: c.print_json(data=result))

    run.__doc__ = f"{verb.title} (the result as JSON)."
    return run
