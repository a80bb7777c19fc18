"""Commands that keep memories over time: sweep, overview, feedback, update, history,
link, forget. Each is a thin layer over the same-named GraphMem method."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from graphmem.base import verbs
from graphmem.base.errors import InputError
from graphmem.base.types import MemoryIn
from graphmem.base.verbs import SweepOptions
from graphmem.cli.options import JsonOpt, NowOpt, ScopeOpt, declared
from graphmem.cli.output import emit, handled, open_memory, say

IdArg = Annotated[str, typer.Argument(help="The memory's id.")]
AllOpt = Annotated[bool, typer.Option("--all-scopes", help="Every scope, not just one.")]


#: What `sweep` takes of SweepOptions, each as SweepOptions declares it.
SWEPT = ("cold_below", "stub_below", "archive_after_days", "archive_below")


@handled
@verbs.declared(declared(SweepOptions, SWEPT))
def sweep(
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Count what would change; write nothing.")] = False,
    all_scopes: AllOpt = False,
    scope: ScopeOpt = None,
    now: NowOpt = None,
    as_json: JsonOpt = False,
    **thresholds: Any,
) -> None:
    """Maintenance: shadow superseded memories, expire TTLs, move tiers (hot, cold, stub),
    prune dead links, consolidate and reflect. Never deletes a memory."""
    _one_target(scope, all_scopes)
    options = SweepOptions(**thresholds)
    with open_memory(scope, now) as mem:
        report = mem.sweep(all_scopes=all_scopes, dry_run=dry_run, options=options)
    for warning in report.warnings:
        say(f"warning: {warning}")

    def render(c) -> None:
        table = Table("transition", "memories", title="sweep (dry run)" if dry_run else "sweep",
                      title_justify="left")
        for name, n in report.counts.items():
            table.add_row(name, str(n))
        c.print(table)
        c.print(f"{report.scope or 'all scopes'} at {report.now:%Y-%m-%d %H:%M} in "
                f"{report.seconds:.2f} s")

    emit(report, as_json, render)


@handled
def overview(all_scopes: AllOpt = False, scope: ScopeOpt = None,
             as_json: JsonOpt = False) -> None:
    """Counts per kind, scope, tier and lifecycle, links by kind, contributors, last sweep."""
    _one_target(scope, all_scopes)
    with open_memory(scope) as mem:
        view = mem.overview(all_scopes=all_scopes)

    def render(c) -> None:
        table = Table("", "counts", title=f"overview: {view.scope or 'all scopes'}",
                      title_justify="left", show_header=False)
        for name in ("kinds", "tiers", "lifecycles", "links", "scopes"):
            counts = getattr(view, name)
            table.add_row(name, "  ".join(f"{k} {n}" for k, n in counts.items()) or "-")
        for s, who in view.contributors.items():
            table.add_row(f"added by ({s})", "  ".join(f"{k} {n}" for k, n in who.items()))
        table.add_row("tombstones", str(view.tombstones))
        last = view.last_sweep
        table.add_row("last sweep", f"{last['at']:%Y-%m-%d %H:%M} ({last['seconds']:.1f} s)"
                      if last else "never")
        c.print(table)

    emit(view, as_json, render)


@handled
def feedback(
    memory_id: IdArg,
    used: Annotated[bool | None, typer.Option(
        "--used/--unused", help="The memory helped (echo) or did not (fizzle).")] = None,
    scope: ScopeOpt = None,
    now: NowOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Tell graphmem whether a recalled memory was used: importance and confidence follow."""
    if used is None:
        raise InputError("say --used or --unused", field="--used")
    with open_memory(scope, now) as mem:
        result = mem.feedback(memory_id, used=used)
    emit(result, as_json, lambda c: c.print(
        f"{result.id}: importance {result.importance:.2f}, confidence "
        f"{result.confidence:.2f}"))


@handled
@verbs.declared(declared(
    MemoryIn, ("text", "kind", "importance", "tags"), unset=True, flags={"tags": ("--tag",)},
    types={"text": str | None, "kind": str | None, "importance": float | None,
           "tags": list[str] | None},
    helps={"text": "The new text (re-embedded).", "tags": "Replace the tags (repeatable)."}))
def update(
    memory_id: IdArg,
    scope: ScopeOpt = None,
    now: NowOpt = None,
    as_json: JsonOpt = False,
    **changes: Any,
) -> None:
    """Change a memory in place; its old text stays in the chain (`graphmem history`)."""
    with open_memory(scope, now) as mem:
        report = mem.update(memory_id, **changes)
    refused = [o for o in report.outcomes if o.status == "rejected"]
    emit(report, as_json, lambda c: None if refused else c.print(f"{memory_id}: updated"))
    if refused:
        say(f"{memory_id}: not updated: {refused[0].reason}")
        raise typer.Exit(1)


@handled
def history(memory_id: IdArg, scope: ScopeOpt = None, as_json: JsonOpt = False) -> None:
    """A memory's chain: what replaced it, itself, and its earlier versions."""
    with open_memory(scope) as mem:
        chain = mem.history(memory_id)

    def render(c) -> None:
        for e in chain:
            m = e.memory
            c.print(f"[bold]{e.relation}[/bold] {m.id}  {m.lifecycle}  "
                    f"{m.created_at:%Y-%m-%d %H:%M}" if m.created_at else m.id)
            c.print(f"  {m.text}", markup=False)

    emit([e.model_dump(mode="json") for e in chain], as_json, render)


@handled
def link(
    a: Annotated[str, typer.Argument(help="One memory's id.")],
    b: Annotated[str, typer.Argument(help="The other memory's id.")],
    weight: Annotated[float, typer.Option(help="Strength, in (0, 1].")] = 0.5,
    scope: ScopeOpt = None,
    now: NowOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Link two memories of a scope by hand (a manual link, never pruned)."""
    with open_memory(scope, now) as mem:
        result = mem.add_link(a, b, weight=weight)
    emit(result, as_json, lambda c: c.print(
        f"{'linked' if result.created else 'relinked'} {a} — {b} ({result.weight:.2f})"))


@handled
def forget(
    memory_id: IdArg,
    hard: Annotated[bool, typer.Option(
        "--hard", help="Delete it and its versions; keep only a tombstone (id, hash, "
        "time, who).")] = False,
    scope: ScopeOpt = None,
    now: NowOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Forget a memory: archived (soft, still findable by id and exact text) or, with
    --hard, deleted with a text-free tombstone."""
    with open_memory(scope, now) as mem:
        result = mem.forget(memory_id, hard=hard)
    emit(result, as_json, lambda c: c.print(
        f"{memory_id}: {'deleted, tombstone kept' if hard else 'archived'}"))


@handled
def drop_scope(
    scope: Annotated[str, typer.Argument(help="The scope to delete, named in full.")],
    yes: Annotated[bool, typer.Option("--yes", help="Delete without asking.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Delete a whole scope for good — a user's whole memory: its memories and their
    versions, tombstones, sessions, entities and indexes of its own. Asks on a terminal;
    give --yes elsewhere."""
    import sys

    from graphmem.base.gates import shown

    if not yes:
        if not sys.stdin.isatty():
            raise InputError(f"deleting the whole scope {shown(scope)} needs --yes (no "
                             "terminal to confirm on)", field="--yes")
        typed = typer.prompt(f"Delete every memory of {shown(scope)} for good? Type the "
                             "scope to confirm", err=True, default="", show_default=False)
        if typed != scope:
            raise InputError("not confirmed: nothing was deleted", field="--yes")
    with open_memory() as mem:
        deleted = mem.drop_scope(scope)
    emit({"scope": scope, "deleted": deleted}, as_json,
         lambda c: c.print(f"{scope}: deleted, with its {deleted} memories"))


@handled
def reembed(
    all_scopes: AllOpt = False,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Embed a scope's memories (and its turns' contexts) again with this process's model
    (GRAPHMEM_EMBEDDING_MODEL), one transaction a scope: readers see the old vectors or
    the new, never a mix. The configured scope, or `--scope`; every scope only with
    `--all-scopes` (each tenant's, on a shared server). Run it again after an
    interruption: the scopes moved already are skipped. A scope of this model already
    gets the context vectors its turns lack (written by an earlier version)."""
    _one_target(scope, all_scopes)
    with open_memory(scope, embeds=True) as mem:
        done = mem.ops.reembed(None if all_scopes else mem.settings.scope)

    def render(c) -> None:
        for r in done:
            c.print(f"{r.scope}: " + (f"already {r.model}" if r.skipped and r.was else
                                      "nothing written yet" if r.skipped else
                                      f"{r.contexts} contexts embedded" if not r.memories
                                      else f"{r.memories} memories {r.was} -> {r.model}"),
                    markup=False)

    emit([r.model_dump() for r in done], as_json, render)


@handled
def browse(
    memory_id: Annotated[str | None, typer.Argument(
        help="A memory to start from (default: the scope's strongest links).")] = None,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Print the Neo4j Browser URL, the style command and the exploration query to paste
    there (`cypher/explore/`: a memory's neighbourhood, or the strongest associations)."""
    from graphmem import browser
    from graphmem.base.settings import load_settings

    settings = load_settings(scope=scope)
    name = "explore/neighbourhood" if memory_id else "explore/strongest_associations"
    params = {"id": memory_id} if memory_id else {"scope": settings.scope}
    out = {"url": browser.url(settings), "query": name, "params": params,
           "style": browser.style_command(), "paste": browser.paste(name, params)}
    def render(c: Console) -> None:
        c.print(out["url"])
        c.print(out["style"], markup=False)
        c.print(out["paste"], markup=False)

    emit(out, as_json, render)


def _one_target(scope: str | None, all_scopes: bool) -> None:
    if scope and all_scopes:
        raise InputError("give --scope or --all-scopes, not both", field="--all-scopes")

