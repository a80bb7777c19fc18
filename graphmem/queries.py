"""Named Cypher queries, one per file under `cypher/<group>/<name>.cypher`, loaded by name.

Each file starts with `//` header lines (purpose, parameters, returns); values always
travel as parameters, never by string building. A part several queries share (retention,
a hit's projection, a turn's neighbours) lives once in `cypher/fragments/<name>.cypher`
and is written into a query where it says `{{name}}` (a fragment may use another), so
every copy is the one the tests check.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import LiteralString, cast

_PACKAGED = Path(__file__).resolve().parent / "cypher"  # inside a built wheel
_SOURCE = Path(__file__).resolve().parent.parent / "cypher"  # in a source checkout
_FRAGMENT = re.compile(r"\{\{(\w+)\}\}")


def cypher_dir() -> Path:
    """The folder holding the `.cypher` files (the wheel's copy, else the checkout's)."""
    return _PACKAGED if _PACKAGED.is_dir() else _SOURCE


@cache
def query(name: str) -> LiteralString:
    """The text of the named query, e.g. `query("recall/vector")`; KeyError if unknown."""
    path = cypher_dir() / f"{name}.cypher"
    if ".." in Path(name).parts or not path.is_file():
        raise KeyError(f"no Cypher query named {name!r} in {cypher_dir()}")
    text = _FRAGMENT.sub(lambda m: _fragment(m.group(1)), path.read_text(encoding="utf-8"))
    # Files are part of the package, not user input: that makes them literal strings.
    return cast(LiteralString, text)


@cache
def _fragment(name: str) -> str:
    path = cypher_dir() / "fragments" / f"{name}.cypher"
    if not path.is_file():
        raise KeyError(f"no Cypher fragment named {name!r} in {path.parent}")
    lines = path.read_text(encoding="utf-8").splitlines()
    text = "\n".join(line for line in lines if not line.startswith("//")).strip()
    return _FRAGMENT.sub(lambda m: _fragment(m.group(1)), text)  # fragments may use others


def all_names() -> list[str]:
    """Every query name the package ships, sorted (fragments are parts, not queries)."""
    root = cypher_dir()
    return sorted(str(p.relative_to(root).with_suffix("")) for p in root.rglob("*.cypher")
                  if p.parent.name != "fragments")
