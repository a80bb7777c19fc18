"""Commands that write records (remember, ingest, import) and the pack export reads back:
each a thin layer over the same-named GraphMem method."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from graphmem.base import verbs
from graphmem.base.errors import InputError
from graphmem.base.vocabulary import FORMATS
from graphmem.cli.options import AllowForgottenOpt, JsonOpt, NowOpt, ScopeOpt, SkipInvalidOpt
from graphmem.cli.output import call, emit, finish_write, handled, open_memory, say, show_progress

KindOpt = Annotated[str | None, typer.Option(
    "--kind", help="Kind for records that name none (episodic, semantic, fact, …).")]
VisibilityOpt = Annotated[str | None, typer.Option(
    "--visibility", help="public or private, for records that name none.")]
SessionOpt = Annotated[str | None, typer.Option(
    "--session", help="Session for records that name none (links memories said together, "
    "in order of arrival; remember's default: GRAPHMEM_SESSION).")]
AddedByOpt = Annotated[str | None, typer.Option(
    "--added-by", help="Who adds these (default: settings); a record's own value wins.")]
NoSignalGateOpt = Annotated[bool, typer.Option(
    "--no-signal-gate", help="Keep short, self-talk, filler and tool-output records "
    "(the secret scanner always runs).")]


#: The options of the commands that write records (remember, ingest), beside their own.
WRITING: dict[str, tuple[Any, Any]] = {
    "kind": (KindOpt, None), "visibility": (VisibilityOpt, None),
    "session": (SessionOpt, None), "scope": (ScopeOpt, None), "added_by": (AddedByOpt, None),
    "skip_invalid": (SkipInvalidOpt, False), "no_signal_gate": (NoSignalGateOpt, False),
    "allow_forgotten": (AllowForgottenOpt, False), "now": (NowOpt, None),
    "as_json": (JsonOpt, False)}


def _writing(given: dict[str, Any]) -> dict[str, Any]:
    """What a write command's WRITING options ask of the write itself."""
    return {"added_by": given["added_by"], "kind": given["kind"],
            "visibility": given["visibility"], "session": given["session"],
            "signal_gate": not given["no_signal_gate"],
            "allow_forgotten": given["allow_forgotten"]}


@handled
@verbs.declared(WRITING)
def remember(
    file: Annotated[Path | None, typer.Argument(
        help="JSON object, JSON array or NDJSON file; '-' or nothing reads stdin.")] = None,
    text: Annotated[str | None,
                    typer.Option("--text", "-t", help="Remember this one text.")] = None,
    **given: Any,
) -> None:
    """Store memories: --text, one JSON object, or NDJSON on stdin or in a file. A batch is
    all or nothing; records the gates refuse are listed as rejected (exit 1)."""
    if text is not None and file is not None:
        raise InputError("give either --text or a file, not both", field="--text")
    flags = _writing(given)
    if text is None:
        if file is None and sys.stdin.isatty():  # else it would wait, saying nothing
            raise InputError("give --text, a file, or records on stdin (a pipe)",
                             field="--text")
        if file is None or str(file) == "-":
            source, data = "<stdin>", sys.stdin.read()
        else:
            from graphmem.write import formats

            source, data = str(file), formats.read_text(file)
    with open_memory(given["scope"], given["now"], embeds=True) as mem:
        if text is not None:
            report = mem.remember(text, source="--text", **flags)
        else:
            report = mem.ops.remember_json(data, source=source,
                                           skip_invalid=given["skip_invalid"],
                                           progress=show_progress(0), **flags)
    finish_write(report, given["as_json"])


@handled
@verbs.declared(WRITING)
def ingest(
    paths: Annotated[list[Path], typer.Argument(
        help="Files or folders: NDJSON/JSONL records, text, Markdown, LoCoMo or chat "
        "transcripts (a folder: every such file below it).")],
    fmt: Annotated[str, typer.Option(
        "--format", help=f"One of {', '.join(FORMATS)}.")] = "auto",
    split: Annotated[str, typer.Option(
        help="Text and Markdown: a memory per 'paragraph' or per '##' 'section'.")
    ] = "paragraph",
    **given: Any,
) -> None:
    """Ingest files. Everything is validated before anything is written; re-ingesting a
    file updates the same memories (stable ids)."""
    with open_memory(given["scope"], given["now"], embeds=True) as mem:
        report = mem.ingest(paths, fmt=fmt, split=split, skip_invalid=given["skip_invalid"],
                            progress=show_progress(0), **_writing(given))
    finish_write(report, given["as_json"])


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
                call().out.write(packs.to_line(record) + "\n")
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
