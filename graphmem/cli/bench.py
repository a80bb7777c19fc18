"""`graphmem bench …`: benchmarks that print their figures with the machine's core count."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from graphmem.cli.output import JsonOpt, emit, handled
from graphmem.errors import InputError

if TYPE_CHECKING:
    from graphmem import bench
    from graphmem.api import GraphMem

app = typer.Typer(help="Benchmarks on real data; each prints its figures.",
                  no_args_is_help=True, rich_markup_mode="markdown")

#: LoCoMo conversation files (locomo, replay).
Conversations = Annotated[list[Path], typer.Argument(help="LoCoMo conversation files.")]
#: The files whose texts make a synthetic store (latency, crowded, sweep).
StoreTexts = Annotated[list[Path], typer.Argument(
    help="Files whose texts make the store (LoCoMo, MuSiQue corpus, records, …).")]


def _memory(**settings: str) -> GraphMem:
    """A GraphMem on the configured server. Each command imports what it runs, so that
    `graphmem --help` loads no store, driver or model."""
    from graphmem.api import GraphMem
    from graphmem.settings import load_settings

    return GraphMem(load_settings(**settings))


@app.command("ingest")
@handled
def ingest(
    paths: Annotated[list[Path], typer.Argument(
        help="LoCoMo conversations (or any file `ingest` reads).")],
    keep: Annotated[bool, typer.Option(help="Keep the benchmark's scope afterwards.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Write-path throughput (gates, embedding, dedup, entities, tagging, storage) against
    embedding the same texts alone, in the same run."""
    from graphmem import bench

    with _memory() as mem:
        result = bench.ingest(mem, paths, keep=keep)

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
    with _memory() as mem:
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
    with _memory() as mem:
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

    with _memory() as mem:
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


@app.command("latency")
@handled
def latency(
    paths: StoreTexts,
    sizes: Annotated[str, typer.Option(help="Store sizes, comma-separated.")
                     ] = "1000,10000,100000",
    queries: Annotated[int, typer.Option(help="Queries per mode and size.")] = 100,
    settle: Annotated[float, typer.Option(
        help="Seconds to wait after each bulk build before measuring.")] = 10.0,
    as_json: JsonOpt = False,
) -> None:
    """p50/p95 recall latency per mode at growing store sizes (query embedding
    included), next to brute-force numpy cosine over the same vectors."""
    from graphmem.bench import synthetic

    try:
        wanted = [int(s) for s in sizes.split(",") if s.strip()]
    except ValueError:
        raise InputError(f"{sizes!r} is not a list of numbers", field="--sizes") from None
    if not wanted or min(wanted) < 20 or not 1 <= queries <= 10_000:
        raise InputError("sizes must be at least 20 and queries 1-10000", field="--sizes")
    with _memory() as mem:
        result = synthetic.latency(mem, paths, sizes=wanted, queries=queries, settle=settle)

    def render(c) -> None:
        modes = list(result.rows[0].p50_ms) if result.rows else []
        table = Table("memories", *(f"{m} p50/p95" for m in modes),
                      title=f"Recall latency in ms, {result.queries} queries per mode "
                      f"({result.cores} cores; store built in {result.build_seconds:.0f} s)",
                      title_justify="left",
                      caption=f"numpy brute force: one BLAS thread; {synthetic.NUMPY_ALL_CORES}"
                      ": BLAS on every core, as Neo4j runs", caption_justify="left")
        for row in result.rows:
            table.add_row(f"{row.memories:,}", *(
                f"{row.p50_ms[m]:.1f} / {row.p95_ms[m]:.1f}" for m in modes))
        c.print(table)
        steps = Table("memories", *(f"{s} p50/p95" for s in synthetic.STEPS), "round trips",
                      title="The default recall, step by step (ms)", title_justify="left",
                      caption="text: waiting for the full-text lists once the query is "
                      "embedded (they run meanwhile)", caption_justify="left")
        for row in result.rows:
            steps.add_row(f"{row.memories:,}", *(
                f"{row.steps_p50_ms[s]:.1f} / {row.steps_p95_ms[s]:.1f}" for s in synthetic.STEPS),
                f"{row.round_trips:.2f}")
        c.print(steps)
        names = list(result.rows[0].runtimes) if result.rows else []
        if names:
            runtimes = Table("memories", *(f"{n} p50/p95 (embed p50)" for n in names),
                             title="Hybrid + association by query runtime, asked in turn (ms)",
                             title_justify="left")
            for row in result.rows:
                runtimes.add_row(f"{row.memories:,}", *(
                    "{:.1f} / {:.1f} ({:.1f})".format(*row.runtimes[n]) for n in names))
            c.print(runtimes)
        for row in result.rows:
            c.print(f"hybrid + association at {row.memories:,}: p50 "
                    f"{row.p50_ms['hybrid+assoc']:.1f} ms (target 20), p95 "
                    f"{row.p95_ms['hybrid+assoc']:.1f} (target 50), {row.vs_numpy:.2f}x numpy "
                    "(target 1.2)")
        for small, big, ratio in result.growth:
            c.print(f"from {small:,} to {big:,} memories: {ratio:.2f}x (target 1.5 per 10x)")

    emit(result, as_json, render)


@app.command("crowded")
@handled
def crowded(
    paths: StoreTexts,
    memories: Annotated[int, typer.Option(help="Memories in all.")] = 100_000,
    scopes: Annotated[int, typer.Option(help="Scopes, one of them big.")] = 1000,
    big: Annotated[int, typer.Option(help="Memories in the big scope.")] = 10_000,
    queries: Annotated[int, typer.Option(help="Queries per kind of scope.")] = 100,
    settle: Annotated[float, typer.Option(
        help="Seconds to wait after the build before measuring.")] = 10.0,
    uris: Annotated[list[str] | None, typer.Option(
        "--uri", help="A Neo4j to measure on; repeat it to compare servers, such as one of "
        "each release line (default: NEO4J_URI).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """p50/p95 recall latency in small scopes and in one big scope of a crowded
    multi-tenant store, next to brute-force numpy cosine over the same scope, on each
    server asked."""
    from graphmem.bench import crowded as crowded_bench
    from graphmem.settings import load_settings

    if not 2 <= scopes <= memories // 5 or not 50 <= big <= memories - 5 * (scopes - 1) \
            or not 1 <= queries <= 10_000:
        raise InputError("need 2+ scopes of 5+ memories, a big scope of 50+ within "
                         "--memories, and 1-10000 queries", field="--scopes")
    settings = load_settings()
    runs = []
    for uri in uris or [settings.neo4j_uri]:
        with _memory(neo4j_uri=uri) as mem:
            runs.append(crowded_bench.crowded(mem, paths, total=memories, scopes=scopes,
                                              big=big, queries=queries, settle=settle))
    result = crowded_bench.CrowdedRuns(runs=runs)

    def render(c) -> None:
        first = result.runs[0]
        modes = list(first.rows[0].p50_ms) if first.rows else []
        table = Table("Neo4j", "scopes", "memories each", *(f"{m} p50/p95" for m in modes),
                      "round trips",
                      title=f"Recall latency in ms in a crowded store: {first.memories:,} "
                      f"memories in {first.scope_count:,} scopes, {first.queries} queries "
                      f"per row ({first.cores} cores; built in "
                      f"{', '.join(f'{r.build_seconds:.0f} s' for r in result.runs)})",
                      title_justify="left")
        for run in result.runs:
            for row in run.rows:
                table.add_row(run.server, row.scopes, row.memories, *(
                    f"{row.p50_ms[m]:.1f} / {row.p95_ms[m]:.1f}" for m in modes),
                    f"{row.round_trips:.2f}")
        c.print(table)

    emit(result, as_json, render)


@app.command("sweep")
@handled
def sweep(
    paths: StoreTexts,
    size: Annotated[int, typer.Option(help="Memories, spread over one year.")] = 100_000,
    as_json: JsonOpt = False,
) -> None:
    """Time one maintenance sweep over a year of memories a year later, next to a dry
    run of the same selections and a second sweep with nothing left to do."""
    from graphmem.bench import synthetic

    if not 20 <= size <= 10_000_000:
        raise InputError("size must be 20 to 10,000,000", field="--size")
    with _memory() as mem:
        result = synthetic.sweep(mem, paths, size=size)

    def render(c) -> None:
        table = Table("", "seconds", title=f"sweep over {result.memories:,} memories "
                      f"({result.cores} cores; store built in {result.build_seconds:.0f} s)",
                      title_justify="left")
        table.add_row("dry run (baseline)", f"{result.dry_run_seconds:.1f}")
        table.add_row("sweep", f"{result.sweep_seconds:.1f}  (× {result.ratio:.2f})")
        table.add_row("second sweep", f"{result.second_sweep_seconds:.1f}")
        c.print(table)
        c.print("  ".join(f"{k} {n:,}" for k, n in result.counts.items()))

    emit(result, as_json, render)


@app.command("batch")
@handled
def batch(
    paths: StoreTexts,
    sizes: Annotated[str, typer.Option(help="Records per input, comma-separated.")] =
    "10000,100000",
    as_json: JsonOpt = False,
) -> None:
    """Write one input of each size (one transaction, or a run of chunks above
    GRAPHMEM_WRITE_CHUNK_ROWS): does it land whole or fail whole, how fast, with what
    message (on the configured server's heap)."""
    from graphmem.bench import batch as batch_bench

    try:
        wanted = [int(s) for s in sizes.split(",") if s.strip()]
    except ValueError:
        raise InputError(f"{sizes!r} is not a list of numbers", field="--sizes") from None
    if not wanted or not all(20 <= n <= 10_000_000 for n in wanted):
        raise InputError("each size must be 20 to 10,000,000", field="--sizes")
    with _memory() as mem:
        result = batch_bench.batch(mem, paths, sizes=wanted)

    def render(c) -> None:
        table = Table("records", "transactions", "landed", "stored", "seconds", "rows/s",
                      "error",
                      title=f"One input, one outcome (Neo4j {result.server}, heap "
                      f"{result.heap}, transaction memory {result.transaction_memory}, "
                      f"{result.chunk_rows:,} records per transaction, {result.cores} cores)",
                      title_justify="left")
        for row in result.rows:
            table.add_row(f"{row.records:,}", f"{row.transactions:,}",
                          "yes" if row.landed else "no", f"{row.stored:,}",
                          f"{row.seconds:.1f}", f"{row.rows_per_second:,}", row.error or "")
        c.print(table)

    emit(result, as_json, render)


@app.command("serve")
@handled
def serve(
    clients: Annotated[int, typer.Option(help="Concurrent clients (threads).")] = 32,
    seconds: Annotated[float, typer.Option(help="How long the load runs.")] = 60.0,
    sigterm_at: Annotated[float | None, typer.Option(
        help="Send the service SIGTERM this many seconds in.")] = None,
    scopes: Annotated[int, typer.Option(
        help="How many scopes the clients share (1: all on one, so its queue shows).")] = 4,
    as_json: JsonOpt = False,
) -> None:
    """The HTTP service (`graphmem serve`, its own process) under a mixed load — remember,
    recall, update, forget, feedback, and attempts on other tokens' scopes — then every
    acknowledged write checked against the store, with the CPU the service and Neo4j
    spent per request."""

    if clients < 1 or seconds <= 0:
        raise InputError("clients must be >= 1 and seconds > 0", field="--clients")
    if not 1 <= scopes <= clients:
        raise InputError("scopes must be 1 to the number of clients", field="--scopes")
    from graphmem.bench import serve as serve_bench

    with _memory() as mem:
        result = serve_bench.run(mem, clients=clients, seconds=seconds, sigterm_at=sigterm_at,
                                 scopes=scopes)

    def render(c) -> None:
        c.print(f"{result.clients} clients on {result.scopes} scopes for {result.seconds} s "
                f"on {result.cores} cores: {result.requests} requests, "
                f"{result.requests_per_s} /s")
        by = result.cpu_ms_per_request_by
        c.print(f"CPU per request: {result.cpu_ms_per_request} ms (service "
                f"{by.get('service')}, Neo4j {by.get('neo4j')})")
        for verb, ms in result.latency_ms.items():
            c.print(f"  {verb:<9} p50 {ms['p50']:7.1f} ms  p95 {ms['p95']:7.1f} ms")
        c.print(f"errors {result.errors}, lost writes {result.lost_writes}, duplicated "
                f"{result.duplicated_writes}, cross-token reads {result.cross_token_reads}, "
                f"refused cross-token {result.refused_cross_token}")
        if result.sigterm_at is not None:
            c.print(f"SIGTERM at {result.sigterm_at} s: exit {result.exit_code}, "
                    f"{result.after_stop} requests found it stopped")

    emit(result, as_json, render)


@app.command("cli")
@handled
def cli(
    runs: Annotated[int, typer.Option(help="Timed rounds (after one warm-up).")] = 5,
    as_json: JsonOpt = False,
) -> None:
    """Wall medians of `recall`, `remember` and `--help`, each a new process as an agent
    calls them (recall and remember as users get them, handed to the warm process, and
    each on its own), next to the floor (a Python importing the driver, numpy and ONNX
    Runtime) measured in the same rounds, in a new scope of a few notes."""
    from graphmem.bench import door

    if not 1 <= runs <= 100:
        raise InputError("runs must be 1 to 100", field="--runs")
    with _memory() as mem:
        result = door.cli(mem, runs=runs)

    def render(c) -> None:
        table = Table("call", "median s", "fastest / slowest", "over floor", "target",
                      title=f"CLI calls as subprocesses, {result.runs} rounds, "
                      f"{result.cores} cores, a scope of {result.scope_memories} notes",
                      title_justify="left")
        for row in result.calls:
            table.add_row(row.call, f"{row.median_s:.3f}",
                          f"{row.spread_s[0]:.3f} / {row.spread_s[1]:.3f}",
                          "" if row.over_floor_s is None else f"+{row.over_floor_s:.3f}",
                          row.target)
        c.print(table)
        c.print(f"MCP over stdio: initialize answered {result.mcp_initialize_s:.2f} s after "
                f"start, the first memory_recall {result.mcp_first_recall_s:.2f} s after "
                f"that (target <= {door.MCP_FIRST_RECALL} s)")
        c.print("model frameworks imported by a cold recall and remember: "
                + (", ".join(result.frameworks_imported) or "none"))
        c.print("targets met" if result.met else "targets NOT met")

    emit(result, as_json, render)
