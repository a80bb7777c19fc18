"""What a caller holding a grant may do: the one check the service's routes and its MCP
tools share (docs/service.md, "Tokens")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graphmem.base.errors import Forbidden, InputError
from graphmem.base.gates import shown
from graphmem.base.options import store_knobs


def may_write(read_only: bool) -> None:
    """Refuse a write to a grant that may only read."""
    if read_only:
        raise Forbidden("this token may only read")


def may_use(scopes: Sequence[str], scope: str | None) -> str:
    """The scope a call acts on (`scope`, else the grant's first), refused unless granted.
    Only a missing scope means the grant's first: an empty one is refused (a drop of ""
    must never reach the default)."""
    if scope is not None and not scope.strip():
        raise InputError("a scope is never empty: name it, or leave it out", field="scope")
    chosen = scopes[0] if scope is None else scope
    if chosen not in scopes:
        raise Forbidden(f"this token may not use scope {shown(chosen)}")
    return chosen


def may_recall_with(read_only: bool, options: Mapping[str, Any]) -> None:
    """Refuse recall options that change what recall stores to a grant that may only read."""
    if read_only and (writes := store_knobs(dict(options))):
        raise Forbidden(f"options.{writes[0]} changes what recall stores; "
                        "this token may only read")
