"""The notebooks run top to bottom against the real server (outputs are not kept)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from graphmem.api import GraphMem

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


@pytest.mark.parametrize("name", ["quickstart", "decay", "benchmarks"])
def test_notebook_runs(name: str, mem: GraphMem, request: pytest.FixtureRequest,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    if name == "benchmarks":  # only this one reads the shared data
        monkeypatch.setenv("GRAPHMEM_DATA", str(request.getfixturevalue("shared_data")))
    s = mem.settings
    monkeypatch.setenv("NEO4J_URI", s.neo4j_uri)
    monkeypatch.setenv("NEO4J_PASSWORD", s.neo4j_password.get_secret_value())
    monkeypatch.setenv("GRAPHMEM_NOTEBOOK_SCOPE", s.scope + "-nb")
    monkeypatch.setenv("GRAPHMEM_NOTEBOOK_CONVERSATIONS", "1")  # one LoCoMo conversation
    monkeypatch.setenv("GRAPHMEM_NOTEBOOK_QUESTIONS", "25")  # of MuSiQue's 100
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
