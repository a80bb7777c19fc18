"""Named Cypher queries, one per file under `cypher/<group>/<name>.cypher`, loaded by name.

Each file starts with `//` header lines (purpose, parameters, returns); values always
travel as parameters, never by string building. A part several queries share (retention,
a hit's projection, a turn's neighbours) lives once in `cypher/fragments/<name>.cypher`
and is written into a query where it says `{{name}}` (a fragment may use another), so
every copy is the one the tests check. Where a server line offers more (Neo4j 2026's
filtered vector SEARCH), `<name>@<variant>.cypher` replaces a query or fragment for that
line (`VARIANTS`); `Store` picks the variant of the server it talks to.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import LiteralString, cast

_PACKAGED = Path(__file__).resolve().parents[1] / "cypher"  # graphmem/cypher in a wheel
_SOURCE = Path(__file__).resolve().parents[2] / "cypher"  # in a source checkout
_FRAGMENT = re.compile(r"\{\{(\w+)\}\}")


def cypher_dir() -> Path:
    """The folder holding the `.cypher` files (the wheel's copy, else the checkout's)."""
    return _PACKAGED if _PACKAGED.is_dir() else _SOURCE


#: Variants of the named queries for what a server line offers, and the Cypher version
#: they are written in. "search": Neo4j 2026's vector SEARCH with in-index filters
#: (Cypher 25), used by `Store` when the server has it.
VARIANTS = {"search": "CYPHER 25"}


@cache
def query(name: str, variant: str | None = None) -> LiteralString:
    """The text of the named query, e.g. `query("recall/vector")`; KeyError if unknown.

    With a `variant`, the query's own `<name>@<variant>.cypher` and its fragments'
    `<fragment>@<variant>.cypher` replace the plain ones where they exist, and a query
    that any of them changed runs in the variant's Cypher version.
    """
    path = cypher_dir() / f"{name}.cypher"
    if ".." in Path(name).parts or "@" in name or not path.is_file():
        raise KeyError(f"no Cypher query named {name!r} in {cypher_dir()}")
    if variant is not None and variant not in VARIANTS:
        raise KeyError(f"no query variant {variant!r}")
    if variant is not None:
        path = _variant_of(path, variant) or path
    text = _FRAGMENT.sub(lambda m: _fragment(m.group(1), variant),
                         path.read_text(encoding="utf-8"))
    if variant is not None and text != query(name):
        text = _after_header(text, VARIANTS[variant])
    # Files are part of the package, not user input: that makes them literal strings.
    return cast(LiteralString, text)


def _variant_of(path: Path, variant: str) -> Path | None:
    found = path.with_name(f"{path.stem}@{variant}.cypher")
    return found if found.is_file() else None


def _after_header(text: str, line: str) -> str:
    """`text` with `line` after its leading `//` header, which stays first."""
    lines = text.split("\n")
    at = next((i for i, s in enumerate(lines) if not s.startswith("//")), len(lines))
    return "\n".join([*lines[:at], line, *lines[at:]])


@cache
def _fragment(name: str, variant: str | None = None) -> str:
    path = cypher_dir() / "fragments" / f"{name}.cypher"
    if not path.is_file():
        raise KeyError(f"no Cypher fragment named {name!r} in {path.parent}")
    if variant is not None:
        path = _variant_of(path, variant) or path
    lines = path.read_text(encoding="utf-8").splitlines()
    text = "\n".join(line for line in lines if not line.startswith("//")).strip()
    # Fragments may use others.
    return _FRAGMENT.sub(lambda m: _fragment(m.group(1), variant), text)


def all_names(variant: str | None = None) -> list[str]:
    """Every query name the package ships, sorted (fragments are parts, not queries);
    with a `variant`, the names whose text that variant changes."""
    root = cypher_dir()
    names = sorted(str(p.relative_to(root).with_suffix("")) for p in root.rglob("*.cypher")
                   if p.parent.name != "fragments" and "@" not in p.name)
    if variant is None:
        return names
    return [n for n in names if query(n, variant) != query(n)]
