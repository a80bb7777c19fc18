"""A benchmark gives the same figures every time it runs on the same data, whatever else
the database holds: `bench locomo` twice, then once more beside a noisy neighbour (a
scope holding another conversation and many notes asking this one's questions), every figure equal.
On the real server, with the real model."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from graphmem.api import GraphMem
from graphmem.bench import locomo

#: Sessions of conv-26 kept: enough turns and questions for every mode to rank, small
#: enough for CI.
SESSIONS = 4
#: Neighbour scopes, each asking every question of the benchmark once.
NEIGHBOURS = 8


def _first_sessions(source: Path, out: Path) -> Path:
    conv = json.loads(source.read_text(encoding="utf-8"))
    kept: dict[str, Any] = {"speaker_a": conv["speaker_a"], "speaker_b": conv["speaker_b"]}
    ids = set()
    for n in range(1, SESSIONS + 1):
        kept[f"session_{n}_date_time"] = conv[f"session_{n}_date_time"]
        kept[f"session_{n}"] = conv[f"session_{n}"]
        ids |= {t["dia_id"] for t in conv[f"session_{n}"]}
    kept["qa"] = [q for q in conv["qa"]
                  if q.get("evidence") and set(q["evidence"]) <= ids]
    out.write_text(json.dumps(kept), encoding="utf-8")
    return out


def _figures(mem: GraphMem, path: Path) -> list[dict[str, Any]]:
    return [m.model_dump() for m in locomo(mem, [path]).modes]


def test_bench_locomo_twice_and_beside_a_noisy_neighbour_gives_the_same_figures(
        mem: GraphMem, shared_data: Path, tmp_path: Path) -> None:
    path = _first_sessions(shared_data / "locomo" / "conv-26.json", tmp_path / "conv-q.json")
    first = _figures(mem, path)
    assert sum(m["by_category"].get("single-hop", {}).get("n", 0) for m in first) > 0
    assert _figures(mem, path) == first
    neighbours = [f"test:neighbour-{uuid.uuid4().hex[:8]}" for _ in range(NEIGHBOURS)]
    try:
        mem.ingest([shared_data / "locomo" / "conv-30.json"], scope=neighbours[0])
        # ...and scopes of notes that ask what the benchmark asks: its words, common there.
        conv = json.loads(path.read_text(encoding="utf-8"))
        for n in neighbours:
            mem.remember([q["question"] for q in conv["qa"]], scope=n, signal_gate=False)
        assert _figures(mem, path) == first
    finally:
        for n in neighbours:
            mem.drop_scope(n)
