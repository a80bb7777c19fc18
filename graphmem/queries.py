"""Named Cypher queries, one per file under `cypher/<group>/<name>.cypher`, loaded by name.

Each file starts with `//` header lines (purpose, parameters, returns); values always
travel as parameters, never by string building.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import LiteralString, cast

_PACKAGED = Path(__file__).resolve().parent / "cypher"  # inside a built wheel
_SOURCE = Path(__file__).resolve().parent.parent / "cypher"  # in a source checkout


def cypher_dir() -> Path:
    """The folder holding the `.cypher` files (the wheel's copy, else the checkout's)."""
    return _PACKAGED if _PACKAGED.is_dir() else _SOURCE


@cache
def query(name: str) -> LiteralString:
    """The text of the named query, e.g. `query("recall/vector")`; KeyError if unknown."""
    path = cypher_dir() / f"{name}.cypher"
    if ".." in Path(name).parts or not path.is_file():
        raise KeyError(f"no Cypher query named {name!r} in {cypher_dir()}")
    # Files are part of the package, not user input: that makes them literal strings.
    return cast(LiteralString, path.read_text(encoding="utf-8"))


def all_names() -> list[str]:
    """Every query name the package ships, sorted."""
    root = cypher_dir()
    return sorted(str(p.relative_to(root).with_suffix("")) for p in root.rglob("*.cypher"))
