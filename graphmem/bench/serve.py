"""`bench serve`: the HTTP service under a mixed load of many clients, then every
acknowledged write checked against the store.

The service runs as its own process (`graphmem serve` on a free port, against the
configured Neo4j). Clients are threads in groups; each group's token may use one scope
of its own. Each client loops for the run's seconds over remember (one or a few records,
ids of its own), recall, update, forget (soft or hard), feedback, and — one request in
ten — an attempt on another group's scope, which must be refused (403) and show nothing
of it. `scopes` sets how many scopes the clients share (1: every client on one scope, so a
scope's queue shows; an idle scope is then the one the attempts aim at). Every text
carries its group's marker, so a reply that shows another group's marker is a
cross-token read. With `sigterm_at`, the service gets SIGTERM that many seconds in:
requests after it fail to connect (counted apart, not as errors), and what was
acknowledged before must still be stored. With `outage_at`, the service reaches Neo4j
through a proxy that cuts every connection and refuses new ones for `outage` seconds
from that moment (a leader change, a rolling restart): requests wait (503 with
Retry-After only past the retry budget, counted apart), and what was acknowledged must
be stored once. The service's and Neo4j's CPU time over the
load, from /proc, is reported per request, with the clients' (this process) and how busy
the whole machine's cores were.
"""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx
import numpy as np
from pydantic import BaseModel

from graphmem.api import GraphMem
from graphmem.bench import cpu
from graphmem.bench.proxy import TcpProxy

VERBS = ("remember", "recall", "update", "forget", "feedback", "cross")
#: How often each verb is drawn (the rest of a client's loop).
MIX = {"remember": 0.35, "recall": 0.3, "update": 0.08, "forget": 0.07, "feedback": 0.1,
       "cross": 0.1}
GROUPS = 4
#: The words the clients' notes and queries are drawn from (`note`).
WORDS = ["harbour", "ferry", "bakery", "lisbon", "piano", "deploy", "release", "museum",
         "tram", "river", "office", "garden", "recital", "budget", "invoice", "meeting",
         "kitchen", "window", "train", "ticket"]


class ServeBench(BaseModel):
    """What `bench serve` measured, and what the store holds of what it was told."""

    cores: int
    clients: int
    scopes: int = GROUPS  # how many scopes the clients share
    seconds: float
    #: Seconds of the same load before the measured `seconds`, not counted.
    warmup_s: float = 0.0
    requests: int
    requests_per_s: float
    #: CPU time of the service and of Neo4j over the load, per request (None where a
    #: process's counters cannot be read: not Linux, or a Neo4j graphmem did not start).
    cpu_ms_per_request: float | None = None
    #: The same per part: "service", "neo4j", and "clients" (this process: the clients'
    #: HTTP, on the same cores).
    cpu_ms_per_request_by: dict[str, float | None] = {}
    #: The share of all the machine's cores in use over the load (every process): near
    #: 1, requests queue on the cores, whatever the locks do.
    machine_busy: float | None = None
    latency_ms: dict[str, dict[str, float]]  # verb -> {"p50", "p95", "max"}
    errors: int  # 5xx, unexpected statuses, transport failures while the service ran
    unavailable: int = 0  # 503: Neo4j away past the retry budget (with Retry-After)
    lost_writes: int  # acknowledged as created, not in the store (nor forgotten)
    duplicated_writes: int  # stored twice, or stored without having been sent
    cross_token_reads: int  # a reply that showed another group's memory
    refused_cross_token: int  # attempts on another group's scope that got 403
    sigterm_at: float | None = None
    #: When the proxy cut Neo4j off, and for how long (seconds into the load).
    outage_at: float | None = None
    outage_s: float | None = None
    after_stop: int = 0  # requests that found the service stopped
    exit_code: int | None = None  # the service's, after SIGTERM
    error_samples: list[str] = []
    service_log: str = ""  # the service's stderr


@dataclass
class _Ledger:
    """What one client was told: ids created and their state, and its counts."""

    live: dict[str, str] = field(default_factory=dict)  # id -> scope, acknowledged
    deleted: set[str] = field(default_factory=set)
    sent: set[str] = field(default_factory=set)
    #: Each answered request's verb, when it was answered (monotonic s) and its ms.
    answered: list[tuple[str, float, float]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    unavailable: int = 0
    cross_reads: int = 0
    refused: int = 0
    after_stop: int = 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run(mem: GraphMem, *, clients: int = 32, seconds: float = 60.0,
        sigterm_at: float | None = None, seed: int = 7, scopes: int = GROUPS,
        outage_at: float | None = None, outage: float = 10.0,
        warmup: float = 0.0) -> ServeBench:
    """Start the service, load it for `warmup` seconds unmeasured and then `seconds` with
    `clients` clients on `scopes` scopes (cutting Neo4j off `outage` seconds from
    `outage_at`, counted from the end of the warm-up), check the store."""
    run_id = uuid.uuid4().hex[:8]
    groups = scopes
    names = [f"bench:serve:{run_id}:{g}" for g in range(max(groups, 2))]
    tokens = [mem.tokens.create(name=f"bench-serve-{run_id}-{g}", scopes=[s]).token
              for g, s in enumerate(names)]
    where = urlsplit(mem.settings.neo4j_uri)
    proxy = (TcpProxy(where.hostname or "127.0.0.1", where.port or 7687)
             if outage_at is not None else None)
    proc, url, log = _service(mem, proxy)
    ledgers = [_Ledger() for _ in range(clients)]
    stopped = threading.Event()  # set when the service is sent SIGTERM
    exit_code = None
    try:
        _wait_ready(url, proc, log.name)
        start = time.monotonic() + warmup
        stop_at = start + seconds
        neo4j = cpu.neo4j_pid(mem)
        threads = [threading.Thread(target=_client, args=(
            url, c % groups, tokens, names, ledgers[c], stop_at, stopped,
            random.Random(seed + c)))
            for c in range(clients)]
        for t in threads:
            t.start()
        # What a cold service and a Neo4j not yet compiled for these queries cost is
        # left out: the CPU and the requests counted from here.
        time.sleep(max(0.0, start - time.monotonic()))
        cpu_at = _clocks(proc.pid, neo4j)
        if proxy is not None and outage_at is not None:
            time.sleep(max(0.0, start + outage_at - time.monotonic()))
            proxy.down()
            time.sleep(outage)
            proxy.up()
        if sigterm_at is not None:
            time.sleep(max(0.0, start + sigterm_at - time.monotonic()))
            cpu_to = _clocks(proc.pid, neo4j)
            stopped.set()
            proc.send_signal(signal.SIGTERM)
            exit_code = proc.wait(timeout=120)
        for t in threads:
            t.join()
        if sigterm_at is None:
            cpu_to = _clocks(proc.pid, neo4j)
        took = time.monotonic() - start
    finally:
        if proxy is not None:
            proxy.up()
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            code: int | None
            try:
                code = proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()
                code = None
            exit_code = exit_code if sigterm_at is not None else code
        if proxy is not None:
            proxy.close()
    try:
        lost, duplicated = _check(mem, names, ledgers, groups)
    finally:
        for token in tokens:
            mem.tokens.revoke(token.split("_")[1])
        for s in names:
            mem.drop_scope(s)
    return _report(ledgers, clients=clients, scopes=groups, took=took, cpu=(cpu_at, cpu_to),
                   since=start, warmup=warmup,
                   lost=lost, duplicated=duplicated, sigterm_at=sigterm_at,
                   exit_code=exit_code, log=log.name,
                   outage=(outage_at, outage) if outage_at is not None else None)


def _service(mem: GraphMem, proxy: TcpProxy | None) -> tuple[subprocess.Popen[bytes], str,
                                                              Any]:
    """`graphmem serve` started on a free port (reaching Neo4j through `proxy` if given):
    its process, its URL and the file its stderr goes to."""
    port = _free_port()
    env = {**os.environ, "NEO4J_URI": mem.settings.neo4j_uri if proxy is None
           else f"bolt://127.0.0.1:{proxy.port}",
           "NEO4J_PASSWORD": mem.settings.neo4j_password.get_secret_value()}
    log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - the service writes it till it ends
        prefix="graphmem-serve-", suffix=".log", delete=False)
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphmem", "serve", "--port", str(port), "--rate", "100000",
         "--burst", "100000"], env=env, stdout=subprocess.DEVNULL, stderr=log)
    return proc, f"http://127.0.0.1:{port}", log


#: Whose CPU a run counts: the service, Neo4j, this process (the clients), then every
#: core's busy and total seconds.
_CLOCKS = ("service", "neo4j", "clients", "busy", "total")


def _clocks(service: int, neo4j: int | None) -> list[float | None]:
    """The CPU clocks of _CLOCKS, now."""
    machine = cpu.machine()
    return [cpu.seconds(service), cpu.seconds(neo4j), cpu.seconds(os.getpid()),
            *(machine or (None, None))]


def _report(ledgers: list[_Ledger], *, clients: int, scopes: int, took: float,
            cpu: tuple[list[float | None], list[float | None]], since: float,
            lost: int, duplicated: int, warmup: float = 0.0,
            sigterm_at: float | None, exit_code: int | None, log: str,
            outage: tuple[float, float] | None = None) -> ServeBench:
    """What the clients' ledgers and the CPU clocks say of a run: the requests answered
    `since` (the end of the warm-up) and the CPU spent since."""
    cpu_at, cpu_to = cpu
    groups = scopes
    times: dict[str, list[float]] = defaultdict(list)
    for ledger in ledgers:
        for verb, at, ms in ledger.answered:
            if at >= since:
                times[verb].append(ms)
    requests = sum(len(xs) for xs in times.values())
    errors = [e for ledger in ledgers for e in ledger.errors]
    spent = {who: None if a is None or b is None else b - a
             for who, a, b in zip(_CLOCKS, cpu_at, cpu_to, strict=True)}
    used = {who: None if (t := spent[who]) is None else round(t * 1000 / max(requests, 1), 1)
            for who in ("service", "neo4j", "clients")}
    both = (None if used["service"] is None or used["neo4j"] is None
            else round(used["service"] + used["neo4j"], 1))
    busy, total = spent["busy"], spent["total"]
    return ServeBench(
        cores=os.cpu_count() or 1, clients=clients, scopes=groups, seconds=round(took, 1),
        warmup_s=warmup,
        requests=requests, requests_per_s=round(requests / took, 1),
        cpu_ms_per_request=both, cpu_ms_per_request_by=used,
        machine_busy=None if busy is None or not total else round(busy / total, 3),
        latency_ms={v: {"p50": round(float(np.percentile(xs, 50)), 1),
                        "p95": round(float(np.percentile(xs, 95)), 1),
                        "max": round(max(xs), 1)}
                    for v, xs in sorted(times.items()) if xs},
        errors=len(errors), unavailable=sum(x.unavailable for x in ledgers),
        lost_writes=lost, duplicated_writes=duplicated,
        cross_token_reads=sum(x.cross_reads for x in ledgers),
        refused_cross_token=sum(x.refused for x in ledgers), sigterm_at=sigterm_at,
        after_stop=sum(x.after_stop for x in ledgers), exit_code=exit_code,
        outage_at=outage[0] if outage else None, outage_s=outage[1] if outage else None,
        error_samples=errors[:5], service_log=log)


def _wait_ready(url: str, proc: subprocess.Popen[bytes], log: str) -> None:
    for _ in range(1200):
        if proc.poll() is not None:
            raise RuntimeError(f"graphmem serve stopped (its log: {log})")
        try:
            if httpx.get(url + "/readyz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise RuntimeError("graphmem serve did not become ready")


def note(rng: random.Random, group: int, key: str) -> str:
    """A client's note: its group's marker, the memory's key and eight drawn words."""
    words = " ".join(rng.choice(WORDS) for _ in range(8))
    return f"grp{group}marker note {key}: {words}"


def _client(url: str, group: int, tokens: list[str], scopes: list[str], ledger: _Ledger,
            stop_at: float, stopped: threading.Event, rng: random.Random) -> None:
    """One client's loop until `stop_at`."""
    others = [f"grp{g}marker" for g in range(len(scopes)) if g != group]
    headers = {"Authorization": f"Bearer {tokens[group]}"}
    verbs, weights = zip(*MIX.items(), strict=True)
    with httpx.Client(base_url=url, headers=headers, timeout=60) as http:
        while time.monotonic() < stop_at:
            verb = rng.choices(verbs, weights)[0]
            mine = sorted(ledger.live)
            if verb in ("update", "forget", "feedback") and not mine:
                verb = "remember"
            path, body = _request(verb, rng, group, scopes, mine)
            began = time.perf_counter()
            try:
                reply = http.post(path, json=body)
            except httpx.TransportError as e:
                if verb == "remember":  # it may have landed: not acknowledged, not lost
                    ledger.sent.update(r["id"] for r in body["records"])
                if not stopped.is_set():
                    ledger.errors.append(f"{verb}: {type(e).__name__}")
                    continue
                ledger.after_stop += 1
                return  # the service was stopped: this client is done
            ledger.answered.append((verb, time.monotonic(),
                                    (time.perf_counter() - began) * 1000))
            _account(verb, body, reply, ledger, others)


def _request(verb: str, rng: random.Random, group: int, scopes: list[str],
             mine: list[str]) -> tuple[str, dict[str, Any]]:
    if verb == "remember":
        records = [{"id": f"m-{uuid.uuid4().hex[:12]}", "text": "", "session": "s"}
                   for _ in range(rng.choice((1, 1, 1, 3)))]
        for r in records:
            r["text"] = note(rng, group, r["id"])
        return "/v1/remember", {"records": records}
    if verb == "recall":
        return "/v1/recall", {"query": " ".join(rng.choice(WORDS) for _ in range(3)),
                              "options": {"top_k": 5}}
    if verb == "update":
        target = rng.choice(mine)
        return "/v1/update", {"id": target, "text": note(rng, group, target + " again")}
    if verb == "forget":
        return "/v1/forget", {"id": rng.choice(mine), "hard": rng.random() < 0.5}
    if verb == "feedback":
        return "/v1/feedback", {"id": rng.choice(mine), "used": rng.random() < 0.5}
    other = rng.choice([s for g, s in enumerate(scopes) if g != group])
    attempts: list[tuple[str, dict[str, Any]]] = [
        ("/v1/recall", {"scope": other, "query": "note marker"}),
        ("/v1/remember", {"scope": other, "text": "not mine"}),
        ("/v1/recall", {"query": "note", "options": {"layers": [other]}})]
    return rng.choice(attempts)


def _account(verb: str, body: dict[str, Any], reply: httpx.Response, ledger: _Ledger,
             others: list[str]) -> None:
    """Note what the client was told."""
    if any(o in reply.text for o in others):
        ledger.cross_reads += 1
    if verb == "cross":
        if reply.status_code == 403:
            ledger.refused += 1
        else:
            ledger.errors.append(f"cross: {reply.status_code} {reply.text[:120]}")
        return
    if reply.status_code == 503 and reply.headers.get("Retry-After"):
        ledger.unavailable += 1  # Neo4j away past the budget: a write may have landed
        if verb == "remember":
            ledger.sent.update(r["id"] for r in body["records"])
        return
    if reply.status_code >= 500 or reply.status_code not in (200, 404):
        ledger.errors.append(f"{verb}: {reply.status_code} {reply.text[:160]}")
        return
    if verb == "remember":
        ledger.sent.update(r["id"] for r in body["records"])
        if reply.status_code == 200:
            for o in reply.json()["outcomes"]:
                if o["status"] == "created":
                    ledger.live[o["id"]] = "created"
    elif verb == "forget" and reply.status_code == 200:
        ledger.live.pop(body["id"], None)
        if body["hard"]:  # archived memories stay stored: only a hard forget is checked
            ledger.deleted.add(body["id"])


def _check(mem: GraphMem, scopes: list[str], ledgers: list[_Ledger],
           groups: int) -> tuple[int, int]:
    """Lost writes (acknowledged as created and live but not live in the store, or
    acknowledged as deleted for good yet stored) and duplicated ones (an id stored that
    no client sent, or one text stored twice), from what the store holds."""
    mem.flush()
    lost = 0
    for c, ledger in enumerate(ledgers):
        ids = sorted(set(ledger.live) | ledger.deleted)
        found: dict[str, str] = {}
        for at in range(0, len(ids), 1000):
            chunk = ids[at:at + 1000]
            found |= {m.id: m.lifecycle for m in
                      mem.get(chunk, scope=scopes[c % groups], limit=len(chunk))}
        lost += sum(1 for i in ledger.live if found.get(i) != "active")
        lost += sum(1 for i in ledger.deleted if i in found)
    sent = {i for x in ledgers for i in x.sent}
    duplicated = 0
    for scope in scopes:
        stored = mem.recent(scope, limit=10_000)
        texts: dict[str, int] = defaultdict(int)
        for m in stored:
            texts[m.text] += 1
        duplicated += sum(1 for m in stored if m.id not in sent)
        duplicated += sum(n - 1 for n in texts.values() if n > 1)
    return lost, duplicated
