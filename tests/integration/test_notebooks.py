"""The notebooks run top to bottom against the real server (outputs are not kept); the
benchmarks notebook on a slice of the benchmark data (`_slice`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from graphmem.api import GraphMem

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


@pytest.mark.parametrize("name", ["quickstart", "decay", "benchmarks"])
def test_notebook_runs(name: str, mem: GraphMem, request: pytest.FixtureRequest,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    if name == "benchmarks":  # only this one reads the shared data: a slice of it here
        data = _slice(request.getfixturevalue("shared_data"),
                      request.getfixturevalue("tmp_path"))
        monkeypatch.setenv("GRAPHMEM_DATA", str(data))
    s = mem.settings
    monkeypatch.setenv("NEO4J_URI", s.neo4j_uri)
    monkeypatch.setenv("NEO4J_PASSWORD", s.neo4j_password.get_secret_value())
    monkeypatch.setenv("GRAPHMEM_NOTEBOOK_SCOPE", s.scope + "-nb")
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    try:
        NotebookClient(nb, timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    finally:  # a notebook that failed half-way leaves nothing behind either
        mem.drop_scope(s.scope + "-nb")
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    if name != "decay":  # the decay notebook draws without a server
        assert any("image/png" in o.get("data", {}) for o in outputs)


#: How much of the benchmark data the benchmarks notebook reads here: it is tested for
#: running top to bottom, not for its figures (the benches are, in their own tests), and
#: one whole conversation and MuSiQue's whole corpus took 2-6 of CI's minutes.
SESSIONS, QUESTIONS = 3, 10


def _slice(shared: Path, into: Path) -> Path:
    """A data folder holding the first LoCoMo conversation's first SESSIONS sessions
    (with the questions whose evidence lies in them) and MuSiQue's first QUESTIONS
    questions with a corpus of their own passages: the same formats, less of them."""
    (into / "locomo").mkdir()
    (into / "multihop").mkdir()
    first = sorted((shared / "locomo").glob("conv-*.json"))[0]
    conv = json.loads(first.read_text())
    kept = {k: v for k, v in conv.items()
            if not (m := re.search(r"session_(\d+)", k)) or int(m.group(1)) <= SESSIONS}
    kept["qa"] = [q for q in conv["qa"] if q.get("evidence") and all(
        re.fullmatch(rf"D([1-{SESSIONS}]):\d+", e) for e in q["evidence"])]
    (into / "locomo" / first.name).write_text(json.dumps(kept))
    questions = json.loads((shared / "multihop" / "musique_train.json").read_text())
    questions = questions[:QUESTIONS]
    corpus = list({(p["title"], p["paragraph_text"]): {
        "title": p["title"], "text": p["paragraph_text"]}
        for q in questions for p in q["paragraphs"]}.values())
    (into / "multihop" / "musique_train.json").write_text(json.dumps(questions))
    (into / "multihop" / "musique_train_corpus.json").write_text(json.dumps(corpus))
    return into
