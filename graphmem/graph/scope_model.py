"""Which embedding model made a scope's vectors (docs/decisions.md, "A scope knows its
model"): recorded on the scope's node by its first write, under the scope's lock, and
read where it is used, never kept by a process: every statement that writes vectors
returns the scope's model from under that lock (fragments/scope_lock), and every recall
reads it with its candidates (fragments/scope_models), so a scope another process moved
to another model (`reembed`, or dropped and written anew) is refused at once, and two
first writers of different models cannot both claim one. A scope written before graphmem
recorded models was written by all-MiniLM-L6-v2, the only default there was."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from graphmem.base import models
from graphmem.base.errors import ConfigError
from graphmem.base.gates import shown
from graphmem.graph.store import Store

#: The model of a scope written before models were recorded.
LEGACY = models.MINILM.name


def of(store: Store, scopes: Sequence[str]) -> dict[str, str | None]:
    """The model of each scope (None: it holds no memory yet), read now."""
    return {r["scope"]: (r["model"] or LEGACY) if r["written"] else None
            for r in store.read_current("admin/scope_model", scopes=scopes)}


def refuse_other(found: Iterable[dict[str, Any]], model: str) -> None:
    """Refuse (ConfigError, exit 2) when a scope of `found` ({scope, model} rows a query
    returned; model None: the scope holds no memory) holds vectors of a model other than
    `model` (a recorded name)."""
    for row in found:
        made = row.get("model")
        if made is not None and made != model:
            scope = row["scope"]
            raise ConfigError(
                f"scope {shown(scope)} holds vectors of the embedding model {made}; this "
                f"process embeds with {model}",
                f"set GRAPHMEM_EMBEDDING_MODEL={made}, or run `graphmem reembed --scope "
                f"{scope}` to move the scope to {model}")
