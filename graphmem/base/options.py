"""The options of the two paths, validated at the boundary: `RecallOptions` (how a
recall runs) and `WriteOptions` (how a batch is written). `parse` turns what a caller
gives into one of them, or into one InputError naming the field."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal, TypedDict, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from graphmem.base.clock import as_utc
from graphmem.base.decay import DEFAULT_CURVES, Curve
from graphmem.base.errors import invalid
from graphmem.base.gates import secret_reason, shown
from graphmem.base.knobs import (
    CHUNK_ROWS,
    DEDUP_THRESHOLD,
    SYNAPTIC_MAX_LINKS,
    SYNAPTIC_THRESHOLD,
    WRITE_BATCH_SIZE,
    BatchSize,
    ChunkRows,
    DedupThreshold,
    SynapticLinks,
    SynapticThreshold,
    check_scope,
)
from graphmem.base.types import SESSION_NAME, canonical_kind
from graphmem.base.vocabulary import (
    HUB_LIMIT,
    KIND_ALIASES,
    KINDS,
    LINK_TAU_DAYS,
    MAX_TOP_K,
    TOP_K,
    VISIBILITIES,
)

MAX_HOPS = 2
MODES = ("hybrid", "vector", "keyword", "exact")
Mode = Literal["hybrid", "vector", "keyword", "exact"]
#: A kind, or an alias every door takes (fact, rule, …: graphmem.base.vocabulary.KIND_ALIASES).
KindOrAlias = Literal[(*KINDS, *KIND_ALIASES)]  # type: ignore[valid-type]

M = TypeVar("M", bound=BaseModel)


def parse(model: type[M], values: dict[str, Any]) -> M:
    """`values` as a `model`, or the InputError naming the first field that is wrong."""
    try:
        return model.model_validate(values)
    except ValidationError as e:
        raise invalid(e) from None


#: A share of a whole, from 0 to 1 (a weight that trades one part of a score for another,
#: a boost, a decay per hop).
Share = Annotated[float, Field(ge=0.0, le=1.0)]
#: A weight that multiplies what it weighs, from 0 (off) to 10.
Weight = Annotated[float, Field(ge=0.0, le=10.0)]


class Fusion(BaseModel):
    """How the lists become one score (`fusion.relevances`, `rank.Scoring`)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    #: Per list (vector, keyword) before fusion.
    candidates: int = Field(50, ge=1, le=10_000)
    #: Reciprocal rank fusion (with k = rrf_k) instead of fusing the lists' scores.
    rrf: bool = False
    rrf_k: int = Field(5, ge=1, le=1_000)
    #: Weighted fusion instead of rank fusion: alpha x cosine + (1 - alpha) x BM25 share.
    alpha: Share | None = None
    temporal_weight: Share = 0.15
    #: Score factor of memories from mounted layers: at most 1, so a layer never outranks
    #: the caller's own memories by fiat (it never decides what is reinforced either).
    layer_factor: float = Field(0.8, gt=0.0, le=1.0)


class Association(BaseModel):
    """How activation spreads from the best hits over the graph (`rank.Spreading`)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    seeds: int = Field(3, ge=1, le=100)
    #: Memories kept per hop of spreading activation.
    width: int = Field(30, ge=1, le=1_000)
    #: Direct candidates that association may reorder: top_k x this.
    pool_factor: int = Field(3, ge=1, le=100)
    #: The bonus weight of what association reached (docs/decisions.md, "Association is
    #: weighted by the memory's own relevance": 1.65 x the 0.6 of rank fusion's days).
    weight: Weight = 1.0
    hop_decay: Share = 0.5
    entity_weight: Weight = 1.0
    #: What the query names: a memory mentioning an entity of the query gains this x the
    #: entity's share / its degree; a memory about one (its title, a turn's speaker)
    #: scores x (1 + subject_weight).
    mention_weight: Weight = 1.65
    subject_weight: Share = 0.3
    hub_limit: int = Field(HUB_LIMIT, ge=1, le=1_000_000)
    link_tau_days: float = Field(LINK_TAU_DAYS, gt=0.0, le=36_500.0)


class Context(BaseModel):
    """How a memory's conversation counts (`fusion.relevances`, `turns.rerank`)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    #: Hybrid without an alpha only: memories are also found and scored as they read with
    #: the turn before them, and by their session's best BM25.
    enabled: bool = True
    #: The weight of the session list (a turn's session's best BM25) in fusion; 0 off.
    session_weight: Weight = 1.0
    #: A memory gains this share of its better neighbour's score in its session; 0 off.
    turn_weight: Share = 0.1


class Feedback(BaseModel):
    """How use shapes the score and what a recall reinforces (`read/reinforcement.py`)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    #: In the score: x (1 + use_weight * (used - unused) / (used + unused + 1)).
    use_weight: Share = 0.6
    reinforce: bool = True
    # What a recall writes (STORE_KNOBS): bounded, so no caller can push a stability or a
    # link weight past what reinforcement itself reaches in a lifetime of recalls.
    direct_boost: Share = 0.1
    associative_boost: Share = 0.03
    co_retrieval_step: Share = 0.05
    co_retrieval_initial: Share = 0.1
    co_retrieval_top: int = Field(3, ge=0, le=50)
    promote_accesses: int = Field(10, ge=1, le=1_000_000)
    promote_confidence: Share = 0.7


#: The knobs that change what a recall stores (stability, confidence, kind, co-retrieval
#: links), not how it ranks: a caller who may only read may not set them.
STORE_KNOBS = frozenset({"direct_boost", "associative_boost", "co_retrieval_step",
                         "co_retrieval_initial", "co_retrieval_top", "promote_accesses",
                         "promote_confidence"})


def store_knobs(values: dict[str, Any]) -> list[str]:
    """The options in `values` (by short name, or inside a `feedback` group) that change
    what a recall stores, as `name` or `feedback.name`."""
    found = [k for k in values if k in STORE_KNOBS]
    group = values.get("feedback")
    if isinstance(group, dict):
        found += [f"feedback.{k}" for k in group if k in STORE_KNOBS]
    return found


#: The groups of RecallOptions' tuning knobs, by field name.
GROUPS: dict[str, type[BaseModel]] = {"fusion": Fusion, "association": Association,
                                      "context": Context, "feedback": Feedback}
#: Where a knob's short name lives (the CLI's, the service's and the MCP tool's
#: `--rrf-k`, `turn_weight`, …): the group and its field there. `association` as a number
#: is the association weight, `context` as true or false whether context ranks.
SHORT_NAMES: dict[str, tuple[str, str]] = {
    **{f: (g, f) for g, model in GROUPS.items() for f in model.model_fields},
    "association": ("association", "weight"), "context": ("context", "enabled"),
}


class RecallSettings(TypedDict, total=False):
    """`GraphMem.recall`'s keyword arguments, typed: every RecallOptions field and every
    knob's short name (a unit test holds it to both)."""

    mode: str
    top_k: int
    hops: int
    kinds: list[str] | None
    filters: dict[str, list[Any]]
    include_shadowed: bool
    include_archived: bool
    case_sensitive: bool
    layers: list[str]
    since: datetime | str | None
    until: datetime | str | None
    diverse: bool
    decay: dict[str, Curve]
    fusion: Fusion | dict[str, Any]
    association: Association | dict[str, Any] | float
    context: Context | dict[str, Any] | bool
    feedback: Feedback | dict[str, Any]
    # Fusion
    candidates: int
    rrf: bool
    rrf_k: int
    alpha: float | None
    temporal_weight: float
    layer_factor: float
    # Association
    seeds: int
    width: int
    pool_factor: int
    weight: float
    hop_decay: float
    entity_weight: float
    mention_weight: float
    subject_weight: float
    hub_limit: int
    link_tau_days: float
    # Context
    enabled: bool
    session_weight: float
    turn_weight: float
    # Feedback
    use_weight: float
    reinforce: bool
    direct_boost: float
    associative_boost: float
    co_retrieval_step: float
    co_retrieval_initial: float
    co_retrieval_top: int
    promote_accesses: int
    promote_confidence: float


class WriteSettings(TypedDict, total=False):
    """What a write takes besides its records (`GraphMem.ops.write_options`), typed for
    `remember`, `remember_json` and `ingest`."""

    scope: str | None
    added_by: str | None
    kind: str | None
    visibility: str | None
    session: str | None
    signal_gate: bool
    allow_forgotten: bool


class RecallOptions(BaseModel):
    """How one recall runs; the defaults are graphmem's defaults. What to recall is
    flat; how it is ranked is grouped (fusion, association, context, feedback). Every
    knob may also be given by its short name (`rrf_k=7`, `turn_weight=0`, `context=False`,
    `association=0.4`)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    # What a door shows of each (its help, bounds and choices) is declared here, once
    # (graphmem.base.verbs).
    mode: Mode = Field("hybrid", description="hybrid (default) unless you need exact words.")
    top_k: int = Field(TOP_K, ge=1, le=MAX_TOP_K, description="How many memories.")
    hops: int = Field(2, ge=0, le=MAX_HOPS,
                      description="Association depth, 0-2 (0 turns it off).")
    kinds: list[KindOrAlias] | None = Field(None, description="Only these kinds.")
    filters: dict[str, list[Any]] = {}
    include_shadowed: bool = Field(
        False, description="Also memories a newer version shadows.")
    include_archived: bool = Field(False, description="Also archived memories.")
    case_sensitive: bool = Field(False, description="Exact mode: match case.")
    layers: list[str] = []
    #: Only memories written in [since, until) (their created_at), e.g. "last week".
    since: datetime | None = Field(
        None, description="Only memories written at or after this ISO-8601 time.")
    until: datetime | None = Field(
        None, description="Only memories written before this ISO-8601 time.")
    diverse: bool = Field(False, description=(
        "Mix kinds: semantic 40 %, episodic 25 %, procedural 20 %, heuristic and core 15 % "
        "of the hits (unused shares go to the best of any kind)."))
    decay: dict[str, Curve] = Field(default_factory=lambda: dict(DEFAULT_CURVES))
    fusion: Fusion = Fusion()
    association: Association = Association()
    context: Context = Context()
    feedback: Feedback = Feedback()

    @classmethod
    def accepts(cls, name: str) -> bool:
        """Whether `name` is an option a caller may give (a field, or a knob's short
        name)."""
        return name in cls.model_fields or name in SHORT_NAMES

    @model_validator(mode="before")
    @classmethod
    def _short_names(cls, values: Any) -> Any:
        if not isinstance(values, dict):
            return values
        out = dict(values)
        groups: dict[str, dict[str, Any]] = {}
        for name, value in values.items():
            if name in GROUPS and (isinstance(value, (dict, BaseModel))):
                continue  # a whole group
            if name in SHORT_NAMES:
                group, field = SHORT_NAMES[name]
                groups.setdefault(group, {})[field] = value
                del out[name]
        for group, knobs in groups.items():
            given = out.get(group, {})
            if not isinstance(given, dict | BaseModel):
                raise ValueError(f"{group} is a group of options (an object), "
                                 f"got {type(given).__name__}")
            base = given.model_dump(exclude_unset=True) if isinstance(given, BaseModel) \
                else dict(given)
            out[group] = {**base, **knobs}
        return out

    @field_validator("mode", mode="before")
    @classmethod
    def _mode(cls, value: Any) -> Any:
        if isinstance(value, str) and value not in MODES:
            raise ValueError(f"unknown mode {shown(value)} (one of {', '.join(MODES)})")
        return value

    @field_validator("kinds", mode="before")
    @classmethod
    def _kinds(cls, value: Any) -> Any:
        # An alias becomes its kind; an unknown kind is named with the choices.
        if isinstance(value, list | tuple):
            return [canonical_kind(k) if isinstance(k, str) else k for k in value]
        return value

    @field_validator("layers")
    @classmethod
    def _layers(cls, value: list[str]) -> list[str]:
        return [check_scope(layer) for layer in value]

    @field_validator("since", "until")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        return None if value is None else as_utc(value)

    @model_validator(mode="after")
    def _period(self) -> RecallOptions:
        if self.since and self.until and self.since >= self.until:
            raise ValueError("since must be before until")
        return self

    def lifecycles(self) -> list[str]:
        """The lifecycles this recall may return."""
        return ["active"] + (["shadowed"] if self.include_shadowed else []) + (
            ["archived"] if self.include_archived else [])



class WriteOptions(BaseModel):
    """How a batch is written: the caller's defaults for records that name none, the gates,
    and the write path's thresholds (from settings)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    scope: str
    now: datetime
    #: The embedding model the scope must be of (its recorded name, `Embedder.recorded`):
    #: checked under the scope's lock by every statement that writes vectors.
    model: str
    added_by: str | None = None
    kind: str | None = None
    visibility: str | None = None
    session: str | None = None
    signal_gate: bool = True
    #: Write records whose id or text a hard forget removed (refused otherwise).
    allow_forgotten: bool = False
    # The write path's knobs, as configured (graphmem.base.settings defines them once).
    batch_size: BatchSize = WRITE_BATCH_SIZE
    chunk_rows: ChunkRows = CHUNK_ROWS
    dedup_threshold: DedupThreshold = DEDUP_THRESHOLD
    synaptic_threshold: SynapticThreshold = SYNAPTIC_THRESHOLD
    synaptic_max_links: SynapticLinks = SYNAPTIC_MAX_LINKS

    @field_validator("scope")
    @classmethod
    def _scope(cls, value: str) -> str:
        return check_scope(value)

    @field_validator("now")
    @classmethod
    def _now(cls, value: datetime) -> datetime:
        return as_utc(value)

    @field_validator("added_by", "session")
    @classmethod
    def _no_secret(cls, value: str | None) -> str | None:
        if value is not None and (reason := secret_reason(value)):
            raise ValueError(f"refused: it {reason} (the value is not shown)")
        return value

    @field_validator("kind")
    @classmethod
    def _kind(cls, value: str | None) -> str | None:
        return None if value is None else canonical_kind(value)

    @field_validator("visibility")
    @classmethod
    def _visibility(cls, value: str | None) -> str | None:
        if value is not None and value not in VISIBILITIES:
            raise ValueError(f"visibility must be one of {', '.join(VISIBILITIES)}")
        return value

    @field_validator("session")
    @classmethod
    def _session(cls, value: str | None) -> str | None:
        if value is not None and not SESSION_NAME.fullmatch(value):
            raise ValueError("a session name is 1-200 characters without '#' or newlines")
        return value
