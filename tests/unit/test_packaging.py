"""What a maintainer expects of the package: every package the library imports is
declared, the version is written once, the type marker and the license ship."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _name(requirement: str) -> str:
    """A requirement's distribution name, normalised (PEP 503)."""
    return re.sub(r"[-_.]+", "-", re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0]).lower()


def imported(folder: Path, *, leaving: Path | None = None) -> set[str]:
    """The top-level modules the code under `folder` (but not under `leaving`) imports,
    outside the standard library and graphmem itself."""
    found: set[str] = set()
    for path in folder.rglob("*.py"):
        if leaving is not None and path.is_relative_to(leaving):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return {m for m in found if m not in sys.stdlib_module_names and m != "graphmem"}


def _undeclared(modules: set[str], declared: set[str]) -> dict[str, list[str]]:
    owners = metadata.packages_distributions()
    undeclared = {}
    for module in sorted(modules):
        dists = {_name(d) for d in owners.get(module, [module])}
        if not dists & declared:
            undeclared[module] = sorted(dists)
    return undeclared


def test_every_package_the_library_imports_is_declared() -> None:
    """The core imports only core dependencies; the framework integrations may also
    import their extra's."""
    core = {_name(r) for r in PYPROJECT["project"]["dependencies"]}
    agents = {_name(r) for r in PYPROJECT["project"]["optional-dependencies"]["agents"]}
    integrations = ROOT / "graphmem" / "integrations"
    assert _undeclared(imported(ROOT / "graphmem", leaving=integrations), core) == {}
    assert _undeclared(imported(integrations), core | agents) == {}
    assert imported(integrations) >= {"langgraph", "langchain_core"}  # it sees the extra


def test_the_version_is_written_once() -> None:
    import graphmem

    assert graphmem.__version__ == PYPROJECT["project"]["version"]
    hits = [p for p in (ROOT / "graphmem").rglob("*.py")
            if re.search(r'__version__\s*=\s*["\']', p.read_text())]
    assert hits == []


def test_the_package_carries_its_type_marker_and_license() -> None:
    assert (ROOT / "graphmem" / "py.typed").is_file()
    assert (ROOT / "LICENSE").read_text().lstrip().startswith("Apache License")
    assert PYPROJECT["project"]["license"] == {"text": "Apache-2.0"}
