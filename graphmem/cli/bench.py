"""`graphmem bench …`: benchmarks that print their figures with the machine's core count;
here those of recall (ingest, locomo, replay, multihop), the speed and scale ones in
cli/bench_speed.py."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from graphmem.base.errors import InputError
from graphmem.cli import bench_speed
from graphmem.cli.bench_speed import memory
from graphmem.cli.options import JsonOpt
from graphmem.cli.output import emit, handled

if TYPE_CHECKING:
    from graphmem import bench

app = typer.Typer(help="Benchmarks on real data; each prints its figures.",
                  no_args_is_help=True, rich_markup_mode="markdown")

#: LoCoMo conversation files (locomo, replay).
Conversations = Annotated[list[Path], typer.Argument(help="LoCoMo conversation files.")]


@app.command("ingest")
@handled
def ingest(
    paths: Annotated[list[Path], typer.Argument(
        help="LoCoMo conversations (or any file `ingest` reads).")],
    keep: Annotated[bool, typer.Option(help="Keep the benchmark's scope afterwards.")] = False,
    as_agent: Annotated[bool, typer.Option(
        "--as-agent", help="Also write the same turns one remember call each, as an agent "
        "does, and print each call's p50/p95 and CPU next to embedding one text alone.")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Write-path throughput (gates, embedding, dedup, entities, tagging, storage) against
    embedding the same texts alone, in the same run."""
    from graphmem import bench

    with memory() as mem:
        result = bench.ingest(mem, paths, keep=keep, as_agent=as_agent)

    def render(c) -> None:
        c.print(f"{result.memories} memories from {len(result.files)} files on "
                f"{result.cores} cores")
        c.print(f"embedding only  {result.embed_only_per_s:8.1f} memories/s")
        c.print(f"full ingest     {result.ingest_per_s:8.1f} memories/s  "
                f"(ratio {result.ratio:.2f}; target >= 0.80)")
        labels = {"wait": "waiting for writes", "write": "writing (in a thread, overlaps)"}
        for stage, share in result.shares.items():
            c.print(f"  {labels.get(stage, stage):<32} {result.seconds[stage]:7.2f} s  "
                    f"{share:6.1%}")
        c.print(f"outcomes {result.counts}, {result.entities} entities, "
                f"{result.synaptic_links} synaptic links")
        if result.agent is not None:
            a = result.agent
            c.print(f"as an agent: {a.writes} remember calls, p50 {a.p50_ms:.1f} ms, p95 "
                    f"{a.p95_ms:.1f} ms, {a.cpu_ms_per_write:.1f} ms of this process's CPU "
                    f"a call; one text embedded alone {a.embed_one_p50_ms:.2f} ms "
                    f"(x{a.ratio_to_embed:.2f})")

    emit(result, as_json, render)


@app.command("locomo")
@handled
def locomo(
    paths: Conversations,
    keep: Annotated[bool, typer.Option(
        help="Keep the conversations' scopes (a later run reuses them).")] = False,
    as_agent: Annotated[bool, typer.Option(
        "--as-agent", help="Also write each conversation as an agent does, one remember "
        "call per turn without positions (signal gate on, and off), and ask it too.")
    ] = False,
    late: Annotated[float, typer.Option(
        help="With --as-agent: the share of each session's turns that arrives after the "
        "rest of its session (drawn from a fixed seed).")] = 0.0,
    as_json: JsonOpt = False,
) -> None:
    """Evidence recall@5/@10 on LoCoMo, per mode and question category, in one run."""
    from graphmem import bench

    if not 0.0 <= late < 1.0:
        raise InputError("late is a share from 0 to below 1", field="--late")
    with memory() as mem:
        result = bench.locomo(mem, paths, keep=keep, as_agent=as_agent, late=late)

    def render(c) -> None:
        c.print(_recall_table(
            "mode", result.modes, f"LoCoMo evidence recall, {result.questions} questions "
            f"from {result.conversations} conversations ({result.cores} cores, "
            f"{result.seconds:.0f} s)"))
        for w in result.agent_writes:
            c.print(f"written as an agent, signal gate {'on' if w.signal_gate else 'off'}: "
                    f"{w.turns} turns, {w.counts}; evidence turns refused "
                    f"{w.evidence_refused} of {w.evidence_turns}")

    emit(result, as_json, render)


def _recall_table(first: str, rows: list[bench.ModeScores], title: str) -> Table:
    """Evidence recall per row, overall and per question category."""
    from graphmem import bench

    cats = list(bench.CATEGORIES.values())
    table = Table(first, "R@5", "R@10", *(f"{c} @10" for c in cats), title=title,
                  title_justify="left")
    for m in rows:
        table.add_row(m.mode, f"{m.recall_at_5:.1f}", f"{m.recall_at_10:.1f}",
                      *(f"{m.by_category.get(c, {}).get('@10', 0):.1f}" for c in cats))
    return table


@app.command("replay")
@handled
def replay(
    paths: Conversations,
    keep: Annotated[bool, typer.Option(
        help="Keep the copies' scopes afterwards, to look at them.")] = False,
    noise: Annotated[float, typer.Option(
        help="The share of feedback reports that are wrong (0-1), drawn from --seed.")
    ] = 0.0,
    seed: Annotated[int, typer.Option(help="The seed of the wrong reports.")] = 0,
    use_weight: Annotated[float | None, typer.Option(
        help="Feedback's weight in the score (default: recall's).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Does memory get better with use? Each conversation's questions in order: the second
    half with no use, after the first half was asked (reinforcement), and after it was
    asked and its answers reported used or unused (feedback); and the first half asked
    again. Fresh copies of one store per conversation, in one run."""
    from graphmem.bench.replay import replay as run_replay

    if not 0.0 <= noise <= 1.0:
        raise InputError("noise is a share from 0 to 1", field="--noise")
    if use_weight is not None and not 0.0 <= use_weight <= 1.0:
        raise InputError("use-weight is from 0 to 1", field="--use-weight")
    with memory() as mem:
        result = run_replay(mem, paths, keep=keep, noise=noise, seed=seed,
                            use_weight=use_weight)

    emit(result, as_json, lambda c: c.print(_recall_table(
        "questions", result.rows, f"LoCoMo replay, {result.first_half} + "
        f"{result.second_half} questions from {result.conversations} conversations, "
        f"{result.noise:.0%} of reports wrong, use weight {result.use_weight} "
        f"({result.cores} cores, {result.seconds:.0f} s)")))


@app.command("multihop")
@handled
def multihop(
    questions: Annotated[Path, typer.Argument(help="MuSiQue-format questions (JSON list).")],
    corpus: Annotated[Path | None, typer.Option(
        help="The passages to index (default: <questions>_corpus.json beside it).")] = None,
    keep: Annotated[bool, typer.Option(
        help="Keep the corpus' scope (a later run reuses it).")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Recall@2/@5 of supporting passages per mode, on a MuSiQue-format question set."""
    from graphmem import bench

    with memory() as mem:
        result = bench.multihop(mem, questions, corpus, keep=keep)

    def render(c) -> None:
        table = Table("mode", "R@2", "R@5",
                      title=f"Multi-hop passage recall, {result.questions} questions over "
                      f"{result.passages} passages ({result.cores} cores, "
                      f"{result.seconds:.0f} s)", title_justify="left")
        for mode, r in result.modes.items():
            table.add_row(mode, f"{r['@2']:.1f}", f"{r['@5']:.1f}")
        c.print(table)

    emit(result, as_json, render)


for _name in bench_speed.COMMANDS:
    app.command(_name)(getattr(bench_speed, _name))
