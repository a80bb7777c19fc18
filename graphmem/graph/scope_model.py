"""Which embedding model made a scope's vectors (docs/decisions.md, "A scope knows its
model"): recorded on the scope's node at its first write, and checked before a write or a
recall, so vectors of two models never meet in one scope. A scope written before graphmem
recorded models was written by all-MiniLM-L6-v2, the only default there was. What a
process has read is kept per store (one read per scope and process); a dropped or
re-embedded scope is read again."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from graphmem.embedding import models
from graphmem.errors import ConfigError
from graphmem.graph.store import Store
from graphmem.write.gates import shown

#: The model of a scope written before models were recorded.
LEGACY = models.MINILM.name


class Known:
    """The models of the scopes this process has read or recorded, of one store."""

    def __init__(self) -> None:
        self._models: dict[str, str] = {}
        self._lock = threading.Lock()

    def get(self, scope: str) -> str | None:
        """The model kept for `scope`, if read already."""
        with self._lock:
            return self._models.get(scope)

    def keep(self, scope: str, model: str) -> None:
        """Remember that `scope` holds vectors of `model`."""
        with self._lock:
            self._models[scope] = model

    def forget(self, scopes: Sequence[str] | None) -> None:
        """Read these scopes' models (None: every scope's) again next time (dropped, or
        re-embedded)."""
        with self._lock:
            for scope in list(self._models) if scopes is None else scopes:
                self._models.pop(scope, None)


def name(model: str) -> str:
    """A model's recorded name: the registry's, for a registered model or its alias."""
    spec = models.find(model)
    return spec.name if spec is not None else model


def of(store: Store, scopes: Sequence[str]) -> dict[str, str | None]:
    """The model of each scope (None: it holds no memory yet)."""
    kept = store.kept.get(Known)
    found: dict[str, str | None] = {s: kept.get(s) for s in scopes}
    missing = [s for s, m in found.items() if m is None]
    if missing:
        for row in store.read("admin/scope_model", scopes=missing):
            # A scope that holds no memory has no vectors to keep apart.
            model = (row["model"] or LEGACY) if row["written"] else None
            if model is not None:
                kept.keep(row["scope"], model)
            found[row["scope"]] = model
    return found


def check(store: Store, scopes: Sequence[str], model: str, *, claim: bool = False) -> None:
    """Refuse (ConfigError, exit 2) to use scopes whose vectors another model made; with
    `claim`, record `model` for a scope that has none yet (its first write)."""
    model = name(model)
    for scope, made in of(store, scopes).items():
        if made is None and claim:
            made = store.write("admin/claim_scope_model", scope=scope, model=model)[0]["model"]
            store.kept.get(Known).keep(scope, made)
        if made is not None and made != model:
            raise ConfigError(
                f"scope {shown(scope)} holds vectors of the embedding model {made}; this "
                f"process embeds with {model}",
                f"set GRAPHMEM_EMBEDDING_MODEL={made}, or run `graphmem reembed --scope "
                f"{scope}` to move the scope to {model}")
