"""Commands that read memories: get, recall, context. Each is a thin layer over the
same-named GraphMem method."""

from __future__ import annotations

import contextlib
import json
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from graphmem.base import verbs
from graphmem.base.errors import InputError, NotFoundError
from graphmem.base.gates import shown
from graphmem.base.options import RecallOptions
from graphmem.base.verbs import ContextArgs
from graphmem.cli.options import JsonOpt, NowOpt, ScopeOpt, declared
from graphmem.cli.output import emit, handled, open_memory, parse_now, say

if TYPE_CHECKING:
    from graphmem.base.types import RecallResult

#: What `recall` takes of RecallOptions, each as RecallOptions declares it.
RECALLED = ("top_k", "mode", "hops", "kinds", "include_shadowed", "include_archived",
            "case_sensitive", "since", "until", "diverse")


@handled
def get(
    ids: Annotated[list[str] | None, typer.Argument(help="Memory ids.")] = None,
    meta: Annotated[str | None, typer.Option(
        "--meta", help="Find by one metadata value, e.g. dia_id=D1:3.")] = None,
    scope: ScopeOpt = None,
    limit: Annotated[int, typer.Option(help="At most this many.")] = 100,
    as_json: JsonOpt = False,
) -> None:
    """Show memories of a scope by id or by a metadata value, with sessions and entities."""
    if not ids and meta is None:
        raise InputError("give memory ids or --meta key=value", field="ids")
    pair = None
    if meta is not None:
        key, sep, value = meta.partition("=")
        if not sep:
            raise InputError(f"{shown(meta)} is not key=value", field="--meta")
        pair = (key, value)
    with open_memory(scope) as mem:
        found = mem.get(ids or None, meta=pair, limit=limit)
    if ids:
        missing = sorted(set(ids) - {m.id for m in found})
        if missing:
            raise NotFoundError(f"no memory with id {', '.join(map(shown, missing))} in "
                                "this scope")

    def render(c) -> None:
        for m in found:
            c.print(f"[bold]{m.id}[/bold]  {m.kind}  {m.created_at:%Y-%m-%d %H:%M}  "
                    f"confidence {m.confidence}  confirmed {m.confirmation_count}×")
            c.print(f"  {m.text}", markup=False)
            if m.sessions or m.entities:
                c.print(f"  sessions: {', '.join(m.sessions) or '-'}  "
                        f"entities: {', '.join(m.entities) or '-'}", markup=False)

    emit([m.model_dump(mode="json") for m in found], as_json, render)
    if not found:
        say(f"error: no memory with metadata {shown(meta)} in this scope")
        raise typer.Exit(1)


@handled
@verbs.declared(declared(RecallOptions, RECALLED, flags={
    "top_k": ("--top-k", "-k"), "kinds": ("--kind",)}, types={
    "mode": str, "kinds": list[str] | None, "since": str | None, "until": str | None}))
def recall(
    query: Annotated[str, typer.Argument(help="What to recall, in plain words.")],
    alpha: Annotated[float | None, typer.Option(
        help="Hybrid: alpha * cosine + (1 - alpha) * BM25 instead of rank fusion.")] = None,
    filters: Annotated[list[str] | None, typer.Option(
        "--filter", help="Only memories whose metadata key has this value, e.g. "
        "speaker=Caroline (repeatable).")] = None,
    layer: Annotated[list[str] | None, typer.Option(
        "--layer", help="Also read this scope's public memories, scored x 0.8 "
        "(repeatable).")] = None,
    no_reinforce: Annotated[bool, typer.Option(
        "--no-reinforce", help="Leave stability, access counts and links as they are.")
    ] = False,
    scope: ScopeOpt = None,
    now: NowOpt = None,
    as_json: JsonOpt = False,
    **options: Any,
) -> None:
    """Recall the memories that best answer QUERY, best first, with what association
    adds to them."""
    wanted: dict[str, list[object]] = {}
    for item in filters or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InputError(f"{shown(item)} is not key=value", field="--filter")
        wanted.setdefault(key, []).append(value)
        with contextlib.suppress(ValueError):  # "3" also matches the number 3
            wanted[key].append(json.loads(value))
    with open_memory(scope, now, embeds=True) as mem:
        dates = {k: parse_now(options[k], f"--{k}") for k in ("since", "until")}
        result = mem.recall(
            query, **{**options, **dates, "kinds": options["kinds"] or None}, alpha=alpha,
            filters=wanted, layers=layer or [], reinforce=not no_reinforce)
    emit(result, as_json, lambda c: render_hits(c, result))


@handled
@verbs.declared(declared(ContextArgs, ("top", "max_tokens")))
def context_cmd(
    scope: ScopeOpt = None,
    now: NowOpt = None,
    as_json: JsonOpt = False,
    **args: Any,
) -> None:
    """Print L0 (counts per kind) and L1 (the best memories under a token budget), ready
    to paste into an agent's system prompt."""
    with open_memory(scope, now) as mem:
        ctx = mem.context(**args)
    emit(ctx.model_dump() | {"text": ctx.text}, as_json,
         lambda c: c.print(ctx.text, markup=False, highlight=False))


def render_hits(c, result: RecallResult) -> None:
    """Draw recall hits as a table for a person; associative hits show their path."""
    table = Table("#", "score", "via", "kind", "id", "text", title=f"recall: {result.query}",
                  title_justify="left")
    for rank, h in enumerate(result.hits, start=1):
        text = h.text
        if h.path:
            text += "\n  ← " + " ← ".join(f"{p.name} ({p.weight:.2f}) {p.source}"
                                            for p in reversed(h.path))
        table.add_row(str(rank), f"{h.score:.3f}", h.via, h.kind, h.id, text)
    c.print(table)
    c.print(f"{len(result.hits)} hits in {result.took_ms:.0f} ms "
            f"(mode {result.mode}, scope {result.scope})")
