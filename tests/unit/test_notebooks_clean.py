"""Notebooks are kept in git without outputs, and match the script that writes them."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import nbformat

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def test_notebooks_have_no_outputs_and_match_their_source(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("make_notebooks",
                                                  NOTEBOOKS / "make_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    for name, cells in (("quickstart", module.QUICKSTART), ("decay", module.DECAY),
                        ("benchmarks", module.BENCHMARKS)):
        nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
        code = [c for c in nb.cells if c.cell_type == "code"]
        assert code and all(not c.outputs and c.execution_count is None for c in code)
        assert [c.source for c in nb.cells] == [c.source for c in cells], name
