"""Typed records at graphmem's boundaries: what comes in, what goes out."""

from __future__ import annotations

import math
import re
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    WithJsonSchema,
    computed_field,
    field_validator,
)

from graphmem.base.clock import as_utc
from graphmem.base.gates import shown
from graphmem.base.knobs import check_scope
from graphmem.base.vocabulary import KIND_ALIASES, KINDS

MAX_TEXT_CHARS = 20_000
#: The longest query recall takes. The embedding model reads its first 256 word pieces
#: (about a thousand characters) and keyword search ORs the query's words, so a longer
#: query adds cost, not meaning; a 10 MB one blocked an MCP server for seconds.
MAX_QUERY_CHARS = 4_000
"""A memory's text may be at most this long; longer input is split by `ingest`, not stored."""

Kind = Literal["episodic", "semantic", "procedural", "core", "heuristic", "reflection"]
Source = Literal["user", "agent", "import", "consolidation", "reflection"]
Visibility = Literal["public", "private"]
#: Neo4j stores integers in 64 bits (`meta_value` holds a value to it; the schema says so).
MAX_INT = 2**63 - 1
Scalar = str | Annotated[int, WithJsonSchema(
    {"type": "integer", "minimum": -MAX_INT - 1, "maximum": MAX_INT})] | float | bool
#: A metadata value; None removes the key (on update) or leaves it out (on create).
MetaValue = Scalar | list[Scalar] | None
MAX_META_STRING = 10_000
MAX_META_LIST = 1_000
MemoryId = Annotated[str, StringConstraints(min_length=1, max_length=200, pattern=r"^[^\s]+$")]
#: The ids of kept earlier versions, "<id>@v<n>" (cypher/ingest/snapshot): reserved, so
#: no record takes one and no version is edited (docs/decisions.md, "Versions are kept,
#: never edited").
VERSION_ID = re.compile(r"@v[0-9]+$")

META_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
SESSION_NAME = re.compile(r"^[^\n\r#]{1,200}$")
SessionName = Annotated[str, StringConstraints(pattern=SESSION_NAME.pattern)]

def meta_value(key: str, value: MetaValue) -> MetaValue:
    """A metadata value Neo4j can store as a property, or ValueError naming the key:
    64-bit integers, finite floats, bounded strings, lists of one type (integers mixed
    with floats become floats)."""
    if isinstance(value, list):
        if len(value) > MAX_META_LIST:
            raise ValueError(f"metadata {key!r}: a list holds at most {MAX_META_LIST} items")
        types = {"bool" if isinstance(v, bool) else "number" if isinstance(v, int | float)
                 else "str" for v in value}
        if len(types) > 1:
            raise ValueError(f"metadata {key!r}: a list must hold values of one type "
                             f"(got {' and '.join(sorted(types))})")
        items = [_meta_scalar(key, v) for v in value]
        if any(isinstance(v, float) for v in items):
            items = [float(v) for v in items]
        return items
    return None if value is None else _meta_scalar(key, value)


def _meta_scalar(key: str, value: Scalar) -> Scalar:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and not -MAX_INT - 1 <= value <= MAX_INT:
        raise ValueError(f"metadata {key!r}: integers must fit in 64 bits")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"metadata {key!r}: numbers must be finite")
    if isinstance(value, str) and len(value) > MAX_META_STRING:
        raise ValueError(f"metadata {key!r}: text values hold at most {MAX_META_STRING} "
                         "characters")
    return value


def canonical_kind(value: str) -> str:
    """Resolve a kind or alias (observation→episodic, fact→semantic, …); ValueError if unknown."""
    kind = KIND_ALIASES.get(value.strip().lower(), value.strip().lower())
    if kind not in KINDS:
        raise ValueError(f"unknown kind {shown(value)} (one of {', '.join(KINDS)} or an alias)")
    return kind


class LinkIn(BaseModel):
    """A manual association from a new memory to an existing one (same scope)."""

    model_config = ConfigDict(extra="forbid")

    id: MemoryId
    weight: float = Field(0.5, gt=0.0, le=1.0, allow_inf_nan=False)


class MemoryIn(BaseModel):
    """A memory to store, as a caller hands it in (one JSON object, one NDJSON line).

    Fields left out take the command's defaults (`--kind`, `--session`, …), then these.
    """

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    # What a door shows of each (its help and bounds) is declared here, once
    # (graphmem.base.verbs).
    id: MemoryId | None = None
    text: str = Field(description="One self-contained statement to remember.")
    kind: Kind = Field("episodic", description=(
        "episodic (an event), semantic (a fact), procedural (how to), heuristic (a rule of "
        "thumb), core (identity), reflection; or an alias such as fact or rule."))
    scope: str | None = None
    visibility: Visibility = "public"
    importance: float = Field(0.5, ge=0.0, le=1.0, allow_inf_nan=False,
                              description="0-1; 0.5 is ordinary.")
    confidence: float | None = Field(None, ge=0.0, le=0.95, allow_inf_nan=False)
    source: Source = "user"
    tags: list[Annotated[str, StringConstraints(min_length=1, max_length=100)]] = Field(
        [], description="Short labels.")
    metadata: dict[str, MetaValue] = Field(
        {}, description="Extra facts, e.g. {\"speaker\": \"Ana\"}.")
    created_at: datetime | None = Field(
        None, description="When it was said or happened, ISO-8601 (default: now).")
    #: A TTL: once this passes, sweep archives the memory (it stays findable by id).
    valid_until: datetime | None = None
    added_by: str | None = None
    session: SessionName | None = Field(None, description="The conversation or run.")
    supersedes: MemoryId | None = Field(None, description="Id of a memory this one replaces.")
    links: list[MemoryId | LinkIn] = []

    @field_validator("id")
    @classmethod
    def _not_a_version(cls, value: str | None) -> str | None:
        if value is not None and VERSION_ID.search(value):
            raise ValueError("ids ending in @v<n> name kept versions of a memory "
                             "(history); choose another id")
        return value

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
        for key, v in value.items():
            if not META_KEY.fullmatch(key):
                raise ValueError(f"metadata key {shown(key)} must be letters, digits or _ "
                                 "(max 64)")
            value[key] = meta_value(key, v)
        return value

    @field_validator("created_at", "valid_until")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        return None if value is None else as_utc(value)

    @field_validator("links")
    @classmethod
    def _links(cls, value: list[str | LinkIn]) -> list[str | LinkIn]:
        return [LinkIn(id=v) if isinstance(v, str) else v for v in value]

    def link_list(self) -> list[LinkIn]:
        """`links` with bare ids turned into LinkIn (default weight)."""
        return [v if isinstance(v, LinkIn) else LinkIn(id=v) for v in self.links]

    def names(self) -> list[str]:
        """The names this record carries (its id, scope, author, session, the ids it
        supersedes and links): read for known credentials only, since ids look random."""
        out = [s for s in (self.id, self.scope, self.added_by, self.session,
                           self.supersedes) if s]
        return out + [link.id for link in self.link_list()]

    def strings(self) -> list[str]:
        """Every string of this record's content (text, tags, metadata keys and values):
        what the whole secret scanner reads."""
        out = [self.text, *self.tags]
        for key, value in self.metadata.items():
            out.append(key)
            values = value if isinstance(value, list) else [value]
            out += [v for v in values if isinstance(v, str)]
        return out


WriteStatus = Literal["created", "updated", "confirmed", "rejected", "skipped"]


class WriteOutcome(BaseModel):
    """What happened to one input record: created, updated (same id), confirmed (an
    existing memory said the same; `id` is that memory), rejected by a gate, or skipped
    as invalid (`--skip-invalid`); the last two with the reason."""

    id: str | None
    status: WriteStatus
    source: str | None = None
    line: int | None = None
    field: str | None = None
    reason: str | None = None


class WriteReport(BaseModel):
    """The result of one remember/ingest batch."""

    scope: str
    outcomes: list[WriteOutcome]

    entities: int = 0
    synaptic_links: int = 0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def counts(self) -> dict[str, int]:
        """How many records ended in each status."""
        out: dict[str, int] = {}
        for o in self.outcomes:
            out[o.status] = out.get(o.status, 0) + 1
        return out

    @property
    def rejected(self) -> list[WriteOutcome]:
        """The records a gate refused, with their reasons."""
        return [o for o in self.outcomes if o.status == "rejected"]


#: The source of a path step that starts at the query (an entity the query names).
QUERY = "<query>"


class PathStep(BaseModel):
    """One step of the path by which association reached a memory."""

    source: str  # a memory id, or QUERY
    target: str
    kind: Literal["link", "entity", "subject", "turn", "query"]
    #: The link's kind (synaptic, co_retrieval, manual), the entity's key (also for
    #: "subject": the target is about the entity the source names; and for "query": an
    #: entity the query names, which the target mentions or is about), or for a turn
    #: "the turn after" / "the turn before" (the source is the turn that brought it).
    name: str
    weight: float


class EntityOut(BaseModel):
    """Something a scope's memories name (`GraphMem.entities`)."""

    name: str
    type: str | None = None
    memories: int  # how many memories mention it or are about it


class Link(BaseModel):
    """One edge of the graph around some memories (`GraphMem.links`)."""

    source: str  # a memory id
    type: str  # ASSOCIATED, MENTIONS, ABOUT, IN_SESSION, NEXT, SUPERSEDES, CONSOLIDATED_FROM
    target: str  # a memory id, an entity's name or a session id
    target_label: Literal["Memory", "Entity", "Session"]
    weight: float = 1.0


class Hit(BaseModel):
    """One recalled memory, its score and the parts the score was made of.

    score = relevance x temporal factor (from retention) x layer factor for direct hits;
    for associative hits, activation takes relevance's place and `path` shows the way.
    """

    id: str
    text: str
    kind: str
    scope: str
    score: float
    relevance: float
    cosine: float | None = None
    bm25: float | None = None
    vector_rank: int | None = None
    text_rank: int | None = None
    retention: float = 1.0
    layer: float = 1.0
    activation: float | None = None
    via: Literal["direct", "association"] = "direct"
    path: list[PathStep] = []
    tier: str = "hot"  # as found; a cold or stub hit is re-embedded when reinforced
    created_at: datetime | None = None
    tags: list[str] = []
    metadata: dict[str, Any] = {}
    #: Its place in its session's conversation (a turn), or None.
    position: int | None = None


class MemoryOut(BaseModel):
    """A stored memory as `get` shows it: its properties, sessions and entities."""

    id: str
    text: str
    kind: str
    scope: str
    visibility: str = "public"
    importance: float | None = None
    confidence: float | None = None
    stability: float | None = None
    access_count: int = 0
    confirmation_count: int = 0
    created_at: datetime | None = None
    last_accessed: datetime | None = None
    last_confirmed: datetime | None = None
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    lifecycle: str = "active"
    tier: str = "hot"
    summary: str | None = None  # a stub's short summary; the text is always kept
    version_of: str | None = None  # set on a kept earlier version of an updated memory
    source: str | None = None
    added_by: str | None = None
    tags: list[str] = []
    metadata: dict[str, Any] = {}
    sessions: list[str] = []
    entities: list[str] = []
    supersedes: list[str] = []
    #: Its place in the conversation of `session` (a turn, from 0), or None.
    position: int | None = None
    session: str | None = None


class RecallProfile(BaseModel):
    """Where one recall's time went (ms) and how many queries it sent the server."""

    embed_ms: float = 0.0  # the query's embedding
    #: Waiting for the full-text lists once the query is embedded (they are asked first
    #: and run meanwhile: only what outlasts the embedding shows here).
    text_ms: float = 0.0
    #: Vector and full-text candidates, fused; with association on, the same query
    #: spreads activation and ranks (one round trip).
    candidates_ms: float = 0.0
    associate_ms: float = 0.0  # the ranked hits, built from association's rows
    turns_ms: float = 0.0  # conversation order
    round_trips: int = 0


class RecallResult(BaseModel):
    """The answer to one recall."""

    query: str
    mode: str
    scope: str
    hits: list[Hit]
    took_ms: float
    profile: RecallProfile = Field(default_factory=RecallProfile)


class ServerInfo(BaseModel):
    """Where the memory graph lives (never the password)."""

    uri: str
    database: str
    user: str
    version: str | None = None
    edition: str | None = None
    line: str | None = None  # "5.26" or the calendar year of a 2025+ release
    enables: list[str] = Field(default_factory=list)  # what that line turns on


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
