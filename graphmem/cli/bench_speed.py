"""`graphmem bench …` of speed and scale: latency, crowded, sweep, batch, serve, cli; each
prints its figures with the machine's core count (the recall benchmarks: cli/bench.py)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from graphmem.base.errors import InputError
from graphmem.cli.options import JsonOpt
from graphmem.cli.output import emit, handled

if TYPE_CHECKING:
    from graphmem.api import GraphMem

#: The commands, in the order `graphmem bench --help` lists them.
COMMANDS = ("latency", "crowded", "sweep", "batch", "serve", "verbs", "cli")
#: The files whose texts make a synthetic store (latency, crowded, sweep).
StoreTexts = Annotated[list[Path], typer.Argument(
    help="Files whose texts make the store (LoCoMo, MuSiQue corpus, records, …).")]


def memory(**settings: Any) -> GraphMem:
    """A GraphMem on the configured server. Each command imports what it runs, so that
    `graphmem --help` loads no store, driver or model."""
    from graphmem.api import GraphMem
    from graphmem.base.settings import load_settings

    return GraphMem(load_settings(**settings))


@handled
def latency(
    paths: StoreTexts,
    sizes: Annotated[str, typer.Option(help="Store sizes, comma-separated.")
                     ] = "1000,10000,100000",
    queries: Annotated[int, typer.Option(help="Queries per mode and size.")] = 100,
    settle: Annotated[float, typer.Option(
        help="Seconds to wait after each bulk build before measuring, at least (then "
        "until a local Neo4j is at rest).")] = 10.0,
    rest_within: Annotated[float | None, typer.Option(
        help="Seconds to wait then for a local Neo4j to come to rest, at most (default: "
        "10 minutes; 0: not at all, as beside other work that keeps it busy).")] = None,
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
    with memory() as mem:
        result = synthetic.latency(mem, paths, sizes=wanted, queries=queries, settle=settle,
                                   rest_within=rest_within)

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
                      "CPU: this process / Neo4j",
                      title="The default recall, step by step (ms)", title_justify="left",
                      caption="text: waiting for the full-text lists once the query is "
                      "embedded (they run meanwhile); CPU: a recall's mean, every thread",
                      caption_justify="left")
        for row in result.rows:
            neo4j = row.cpu_ms.get("neo4j")
            steps.add_row(f"{row.memories:,}", *(
                f"{row.steps_p50_ms[s]:.1f} / {row.steps_p95_ms[s]:.1f}" for s in synthetic.STEPS),
                f"{row.round_trips:.2f}",
                f"{row.cpu_ms.get('python', 0):.1f} / "
                + ("?" if neo4j is None else f"{neo4j:.1f}"))
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
            c.print(f"the default at {row.memories:,}: p50 {row.p50_ms['default']:.1f} ms, "
                    f"{row.default_vs_numpy:.2f}x numpy brute force + embedding (target 2)")
        for small, big, ratio in result.growth:
            c.print(f"from {small:,} to {big:,} memories: {ratio:.2f}x (target 1.5 per 10x)")

    emit(result, as_json, render)


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
    from graphmem.base.settings import load_settings
    from graphmem.bench import crowded as crowded_bench

    if not 2 <= scopes <= memories // 5 or not 50 <= big <= memories - 5 * (scopes - 1) \
            or not 1 <= queries <= 10_000:
        raise InputError("need 2+ scopes of 5+ memories, a big scope of 50+ within "
                         "--memories, and 1-10000 queries", field="--scopes")
    settings = load_settings()
    runs = []
    for uri in uris or [settings.neo4j_uri]:
        with memory(neo4j_uri=uri) as mem:
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
    with memory() as mem:
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
    with memory() as mem:
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
        for row in result.rows:
            if row.queries:
                c.print(f"{row.records:,} records, Neo4j by query (ms a record): " + ", ".join(
                    f"{q} {ms}" for q, ms in row.queries.items()))

    emit(result, as_json, render)


@handled
def serve(
    clients: Annotated[int, typer.Option(help="Concurrent clients (threads).")] = 32,
    seconds: Annotated[float, typer.Option(help="How long the load runs.")] = 60.0,
    sigterm_at: Annotated[float | None, typer.Option(
        help="Send the service SIGTERM this many seconds in.")] = None,
    scopes: Annotated[int, typer.Option(
        help="How many scopes the clients share (1: all on one, so its queue shows).")] = 4,
    outage_at: Annotated[float | None, typer.Option(
        help="Cut the service off Neo4j this many seconds in (every connection, through a "
             "proxy), for --outage seconds.")] = None,
    outage: Annotated[float, typer.Option(
        help="How long Neo4j stays away, with --outage-at.")] = 10.0,
    warmup: Annotated[float, typer.Option(
        help="Seconds of the same load before the measured ones, not counted (a service "
        "just started, a Neo4j not yet compiled for its queries). --sigterm-at and "
        "--outage-at count from its end.")] = 10.0,
    as_json: JsonOpt = False,
) -> None:
    """The HTTP service (`graphmem serve`, its own process) under a mixed load — remember,
    recall, update, forget, feedback, and attempts on other tokens' scopes — then every
    acknowledged write checked against the store, with the CPU the service and Neo4j
    spent per request."""

    if clients < 1 or seconds <= 0 or warmup < 0:
        raise InputError("clients must be >= 1, seconds > 0 and warmup >= 0",
                         field="--clients")
    if not 1 <= scopes <= clients:
        raise InputError("scopes must be 1 to the number of clients", field="--scopes")
    if outage_at is not None and (outage_at < 0 or outage <= 0
                                  or outage_at + outage >= seconds):
        raise InputError("the outage must start at >= 0 s and end before the load does",
                         field="--outage-at")
    if outage_at is not None and sigterm_at is not None:
        raise InputError("an outage and a SIGTERM are separate runs", field="--outage-at")
    from graphmem.bench import serve as serve_bench

    with memory() as mem:
        result = serve_bench.run(mem, clients=clients, seconds=seconds, sigterm_at=sigterm_at,
                                 scopes=scopes, outage_at=outage_at, outage=outage,
                                 warmup=warmup)

    def render(c) -> None:
        c.print(f"{result.clients} clients on {result.scopes} scopes for {result.seconds} s "
                f"(after {result.warmup_s:g} s unmeasured) on {result.cores} cores: "
                f"{result.requests} requests, {result.requests_per_s} /s")
        by = result.cpu_ms_per_request_by
        busy = "?" if result.machine_busy is None else f"{result.machine_busy:.0%}"
        c.print(f"CPU per request: {result.cpu_ms_per_request} ms (service "
                f"{by.get('service')}, Neo4j {by.get('neo4j')}; the clients "
                f"{by.get('clients')}); the machine's cores {busy} busy")
        for verb, ms in result.latency_ms.items():
            c.print(f"  {verb:<9} p50 {ms['p50']:7.1f} ms  p95 {ms['p95']:7.1f} ms  "
                    f"max {ms['max']:7.1f} ms")
        if result.outage_at is not None:
            c.print(f"Neo4j cut off at {result.outage_at} s for {result.outage_s} s: "
                    f"{result.unavailable} requests answered 503 (past the retry budget)")
        c.print(f"errors {result.errors}, lost writes {result.lost_writes}, duplicated "
                f"{result.duplicated_writes}, cross-token reads {result.cross_token_reads}, "
                f"refused cross-token {result.refused_cross_token}")
        if result.sigterm_at is not None:
            c.print(f"SIGTERM at {result.sigterm_at} s: exit {result.exit_code}, "
                    f"{result.after_stop} requests found it stopped")

    emit(result, as_json, render)


@handled
def verbs(
    memories: Annotated[int, typer.Option(help="Notes in the scope first.")] = 300,
    calls: Annotated[int, typer.Option(help="Measured calls of each verb.")] = 100,
    as_json: JsonOpt = False,
) -> None:
    """Each verb of `bench serve`'s mix alone, one caller: the CPU of this process (the
    service's side: embedding, ranking, the driver) and of Neo4j a call, Neo4j's by query,
    their mix a request, and where a recall's time goes."""
    if not (1 <= memories <= 100_000 and 1 <= calls <= 10_000):
        raise InputError("memories must be 1 to 100,000 and calls 1 to 10,000",
                         field="--memories")
    from graphmem.bench import verbs as verbs_bench

    with memory() as mem:
        result = verbs_bench.verbs(mem, memories=memories, calls=calls)

    def render(c) -> None:
        table = Table("verb", "this process ms", "Neo4j ms", "wall ms", title=(
            f"A call of each verb, one caller, a scope of {result.memories} notes "
            f"({result.cores} cores)"), title_justify="left")
        for v in result.verbs:
            table.add_row(v.verb, f"{v.python_ms:.1f}", f"{v.neo4j_ms}", f"{v.wall_ms:.1f}")
        c.print(table)
        for v in result.verbs:
            if v.queries:
                c.print(f"{v.verb}, Neo4j by query (ms a call): " + ", ".join(
                    f"{q} {ms}" for q, ms in v.queries.items()))
        c.print(f"bench serve's mix, a request: this process {result.mix_ms['python']} ms, "
                f"Neo4j {result.mix_ms['neo4j']} ms")
        c.print("a recall's stages (ms): " + ", ".join(
            f"{k} {v}" for k, v in result.recall_stages.model_dump().items()))

    emit(result, as_json, render)


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
    with memory() as mem:
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
