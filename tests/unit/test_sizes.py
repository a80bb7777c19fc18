"""Small modules and short functions (issue 45): no function in graphmem/ over 80 lines,
nested ones counted in their parent, no module over 400 lines, and a facade of at most 32
public members in at most 320 lines."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "graphmem"
MAX_FUNCTION, MAX_MODULE, MAX_FACADE = 80, 400, 320


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_no_function_is_over_80_lines() -> None:
    long = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION:
                    long.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} "
                                f"({lines} lines)")
    assert long == []


def test_no_module_is_over_400_lines() -> None:
    over = {}
    for path in _modules():
        lines = path.read_text().count("\n")
        if lines > MAX_MODULE:
            over[path.relative_to(PACKAGE).as_posix()] = lines
    assert over == {}


def test_the_facade_has_at_most_32_public_members_in_320_lines() -> None:
    # It had 47, for four audiences: users, operators, the service's tokens, benchmarks.
    from graphmem.api import GraphMem

    facade = next(node for node in ast.parse((PACKAGE / "api.py").read_text()).body
                  if isinstance(node, ast.ClassDef) and node.name == "GraphMem")
    # Methods and properties, and the attributes its constructor sets (ops, tokens).
    attributes = {t.attr for node in ast.walk(facade) if isinstance(node, ast.Assign)
                  for t in node.targets if isinstance(t, ast.Attribute)
                  and isinstance(t.value, ast.Name) and t.value.id == "self"}
    members = {n for n in [*vars(GraphMem), *attributes] if not n.startswith("_")}
    assert len(members) <= 32, sorted(members)
    assert (facade.end_lineno or 0) - facade.lineno + 1 <= MAX_FACADE
