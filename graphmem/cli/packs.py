"""`graphmem export` and `graphmem import`: a scope's memories as a pack, and back."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from graphmem.cli.output import (
    AllowForgottenOpt,
    JsonOpt,
    NowOpt,
    ScopeOpt,
    SkipInvalidOpt,
    emit,
    finish_write,
    handled,
    open_memory,
    say,
    show_progress,
)


@handled
def export_cmd(
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Write the pack here (default: stdout).")] = None,
    include_shadowed: Annotated[bool, typer.Option(
        "--include-shadowed", help="Also superseded memories.")] = False,
    include_archived: Annotated[bool, typer.Option(
        "--include-archived", help="Also archived (expired, soft-forgotten) memories.")] = False,
    scope: ScopeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Write a scope's memories as a pack: JSONL records that `graphmem import` (or
    `remember`) writes again, into this scope or another (to mount as a --layer)."""
    from graphmem.lifecycle import packs

    with open_memory(scope) as mem:
        if out is not None:
            n = mem.export_pack(out, include_shadowed=include_shadowed,
                                include_archived=include_archived)
        else:
            n = 0
            for record in mem.export(include_shadowed=include_shadowed,
                                     include_archived=include_archived):
                sys.stdout.write(packs.to_line(record) + "\n")
                n += 1
        scope_name = mem.settings.scope
    summary = {"scope": scope_name, "memories": n, "out": str(out) if out else None}
    if out is not None:
        emit(summary, as_json, lambda c: c.print(f"{n} memories of {scope_name} → {out}"))
    else:
        say(f"{n} memories of {scope_name} exported")


@handled
def import_cmd(
    pack: Annotated[Path, typer.Argument(help="A pack from `graphmem export` (JSONL).")],
    id_prefix: Annotated[str | None, typer.Option(
        help="Put this before every id of the pack (an id lives in one scope).")] = None,
    skip_invalid: SkipInvalidOpt = False,
    allow_forgotten: AllowForgottenOpt = False,
    scope: ScopeOpt = None,
    now: NowOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Write a pack into a scope as one batch (the signal gate is off; the secret scanner
    runs). Importing the same pack again updates the same memories."""
    with open_memory(scope, now, embeds=True) as mem:
        report = mem.import_pack(pack, id_prefix=id_prefix, skip_invalid=skip_invalid,
                                 progress=show_progress(0), allow_forgotten=allow_forgotten)
    finish_write(report, as_json)
