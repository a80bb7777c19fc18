"""Typed records at graphmem's boundaries: what comes in, what goes out."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from graphmem.model import KINDS
from graphmem.settings import check_scope

MAX_TEXT_CHARS = 20_000
"""A memory's text may be at most this long; longer input is split by `ingest`, not stored."""

KIND_ALIASES = {
    "observation": "episodic",
    "event": "episodic",
    "insight": "semantic",
    "fact": "semantic",
    "procedure": "procedural",
    "skill": "procedural",
    "identity": "core",
    "rule": "heuristic",
}

Kind = Literal["episodic", "semantic", "procedural", "core", "heuristic", "reflection"]
Source = Literal["user", "agent", "import", "consolidation", "reflection"]
Visibility = Literal["public", "private"]
Scalar = str | int | float | bool
MetaValue = Scalar | list[Scalar]
MemoryId = Annotated[str, StringConstraints(min_length=1, max_length=200, pattern=r"^[^\s]+$")]

_META_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")

#: Default confidence by provenance (SPEC: user-stated 0.7, agent-inferred 0.6).
CONFIDENCE_BY_SOURCE = {"user": 0.7, "agent": 0.6, "import": 0.6, "consolidation": 0.6,
                        "reflection": 0.6}


def canonical_kind(value: str) -> str:
    """Resolve a kind or alias (observation→episodic, fact→semantic, …); ValueError if unknown."""
    kind = KIND_ALIASES.get(value.strip().lower(), value.strip().lower())
    if kind not in KINDS:
        raise ValueError(f"unknown kind {value!r} (one of {', '.join(KINDS)} or an alias)")
    return kind


def as_utc(value: datetime) -> datetime:
    """A timezone-aware datetime in UTC; naive values are taken to be UTC already."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class MemoryIn(BaseModel):
    """A memory to store, as a caller hands it in (one JSON object, one NDJSON line)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    id: MemoryId | None = None
    text: str
    kind: Kind = "episodic"
    scope: str | None = None
    visibility: Visibility = "public"
    importance: float = Field(0.5, ge=0.0, le=1.0, allow_inf_nan=False)
    confidence: float | None = Field(None, ge=0.0, le=0.95, allow_inf_nan=False)
    source: Source = "user"
    tags: list[Annotated[str, StringConstraints(min_length=1, max_length=100)]] = []
    metadata: dict[str, MetaValue] = {}
    created_at: datetime | None = None
    added_by: str | None = None

    @field_validator("text")
    @classmethod
    def _text(cls, value: str) -> str:
        if not value:
            raise ValueError("text is empty")
        if len(value) > MAX_TEXT_CHARS:
            raise ValueError(f"text is {len(value)} characters; the limit is {MAX_TEXT_CHARS}")
        return value

    @field_validator("kind", mode="before")
    @classmethod
    def _kind(cls, value: Any) -> Any:
        return canonical_kind(value) if isinstance(value, str) else value

    @field_validator("scope")
    @classmethod
    def _scope(cls, value: str | None) -> str | None:
        return None if value is None else check_scope(value)

    @field_validator("metadata")
    @classmethod
    def _metadata(cls, value: dict[str, MetaValue]) -> dict[str, MetaValue]:
        for key in value:
            if not _META_KEY.match(key):
                raise ValueError(f"metadata key {key!r} must be letters, digits or _ (max 64)")
        return value

    @field_validator("created_at")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        return None if value is None else as_utc(value)


WriteStatus = Literal["created", "updated", "confirmed", "rejected"]


class WriteOutcome(BaseModel):
    """What happened to one input record."""

    id: str | None
    status: WriteStatus
    line: int | None = None
    reason: str | None = None


class WriteReport(BaseModel):
    """The result of one remember/ingest batch."""

    scope: str
    outcomes: list[WriteOutcome]

    @property
    def counts(self) -> dict[str, int]:
        """How many records ended in each status."""
        out: dict[str, int] = {}
        for o in self.outcomes:
            out[o.status] = out.get(o.status, 0) + 1
        return out


class Hit(BaseModel):
    """One recalled memory with its score and where the score came from."""

    id: str
    text: str
    kind: str
    scope: str
    score: float
    relevance: float
    via: Literal["direct", "association"] = "direct"
    created_at: datetime | None = None
    tags: list[str] = []
    metadata: dict[str, Any] = {}


class RecallResult(BaseModel):
    """The answer to one recall."""

    query: str
    mode: str
    scope: str
    hits: list[Hit]
    took_ms: float


class ServerInfo(BaseModel):
    """Where the memory graph lives (never the password)."""

    uri: str
    database: str
    user: str
    version: str | None = None
    edition: str | None = None


class EmbedderInfo(BaseModel):
    """Which embedding model is in use."""

    model: str
    path: str
    dimensions: int


class DoctorReport(BaseModel):
    """Health of the server, its indexes and the embedder."""

    ok: bool
    server: ServerInfo
    reachable: bool
    problem: str | None = None
    indexes: list[dict[str, Any]] = []
    embedder: EmbedderInfo | None = None
    memories: int | None = None


def utcnow() -> datetime:
    """The wall clock in UTC (the default for every `--now`)."""
    return datetime.now(UTC)
