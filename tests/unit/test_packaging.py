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
    """The top-level modules the code under `folder` (or in that one file; but not under
    `leaving`) imports, outside the standard library and graphmem itself."""
    found: set[str] = set()
    for path in [folder] if folder.is_file() else folder.rglob("*.py"):
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


#: Each framework's adapter modules, by the extra that installs the framework.
ADAPTERS = {"langgraph": ("langgraph", "langchain"), "adk": ("adk",),
            "openai-agents": ("openai_agents",), "llamaindex": ("llamaindex",),
            "autogen": ("autogen",)}


def _extra(name: str) -> set[str]:
    """The distributions extra `name` declares, other extras of graphmem's expanded."""
    out: set[str] = set()
    for r in PYPROJECT["project"]["optional-dependencies"][name]:
        if _name(r) == "graphmem":
            for other in re.findall(r"[\w-]+", r.split("[", 1)[1]):
                out |= _extra(other)
        else:
            out.add(_name(r))
    return out


def test_every_package_the_library_imports_is_declared() -> None:
    """The core imports only core dependencies; each framework's adapter also imports its
    own extra's, and `agents` installs every adapter's."""
    core = {_name(r) for r in PYPROJECT["project"]["dependencies"]}
    integrations = ROOT / "graphmem" / "integrations"
    embedding = ROOT / "graphmem" / "embedding"
    # A sentence-transformers model's load and export need the extra named for it; nothing
    # else does (the default install holds none of it: docs/decisions.md, "A light install");
    # remote.py names its type only.
    torch_path = {embedding / "export.py", embedding / "embedders.py", embedding / "remote.py"}
    extra = core | _extra("sentence-transformers")
    for path in (ROOT / "graphmem").rglob("*.py"):
        if not path.is_relative_to(integrations):
            assert _undeclared(imported(path), extra if path in torch_path else core) == {}, \
                path
    adapters = {m for modules in ADAPTERS.values() for m in modules}
    assert {p.stem for p in integrations.glob("*.py")} - {"__init__"} - adapters == {"names"}
    for extra, modules in ADAPTERS.items():
        for module in modules:
            uses = imported(integrations / f"{module}.py")
            assert _undeclared(uses, core | _extra(extra)) == {}, (module, extra)
            assert uses - {"pydantic"}, module  # it sees its framework
        assert _extra(extra) <= _extra("agents"), extra
    assert _undeclared(imported(integrations / "names.py"), core) == {}


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


def _models(annotation: object) -> set[type]:
    """The pydantic models inside a return annotation (list[X], X | None, …)."""
    from typing import get_args

    from pydantic import BaseModel

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return {annotation}
    return {m for arg in get_args(annotation) for m in _models(arg)}


def test_every_type_a_call_returns_or_takes_is_public() -> None:
    # A caller imports what it receives from `graphmem`, never from an internal module.
    import inspect
    import typing

    import graphmem
    from graphmem.api import GraphMem

    found: set[type] = set()
    for name, fn in inspect.getmembers(GraphMem, inspect.isfunction):
        if not name.startswith("_"):
            hints = typing.get_type_hints(fn)
            found |= {m for hint in hints.values() for m in _models(hint)}
    assert len(found) > 10
    missing = {m.__name__ for m in found} - set(graphmem.__all__)
    assert not missing, missing
    assert all(getattr(graphmem, m.__name__) is m for m in found)
    assert set(graphmem.__all__) == set(dir(graphmem)) - {"__version__"}
