"""How a scope is named inside the graph's indexes and entity keys: plain functions, so
the schema and the migrations that give old memories their keys share one definition."""

from __future__ import annotations

import hashlib


def scope_key(scope: str) -> str:
    """One lower-case alphanumeric Lucene token standing for `scope` in the full-text index."""
    return "s" + hashlib.sha256(scope.encode()).hexdigest()[:24]


def entity_prefix(scope: str) -> str:
    """What an Entity key of `scope` starts with: entities are per scope, so tenants share
    no node (the rest of the key is the extractor's, kept as `Entity.ref`)."""
    return scope_key(scope) + "|"
