"""Service tokens: credentials that map to scopes (docs/service.md).

A token reads `gm_<id>_<secret>`: the id is public (it names the token in `token list`
and finds it at each request), the secret is 32 random bytes shown once. Only the
SHA-256 of the secret is kept, on a `Token` node in Neo4j, so every replica of the
service sees the same tokens and a revocation holds from the next request on. A secret
of 256 random bits needs no slow hash: nothing can be guessed from its digest.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Callable
from datetime import datetime

from pydantic import BaseModel

from graphmem.base.errors import InputError, NotFoundError
from graphmem.base.settings import valid_scope
from graphmem.graph.store import Store

_TOKEN = re.compile(r"gm_([0-9a-f]{16})_([A-Za-z0-9_-]{43})")
#: How many scopes one token may name.
MAX_SCOPES = 100


class Grant(BaseModel):
    """What a live token may do: use its scopes, and write unless read-only."""

    id: str
    name: str
    scopes: list[str]
    read_only: bool


class TokenInfo(BaseModel):
    """A token as `token list` shows it (never its secret or hash)."""

    id: str
    name: str
    scopes: list[str]
    read_only: bool
    created_at: datetime
    revoked_at: datetime | None = None


class NewToken(BaseModel):
    """A token just made: `token` is shown this once and kept nowhere."""

    token: str
    info: TokenInfo


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("ascii")).hexdigest()


def create(store: Store, *, name: str, scopes: list[str], read_only: bool,
           now: datetime) -> NewToken:
    """Make a token for `scopes` (each a valid scope name) and return it once."""
    if not name.strip() or len(name) > 200:
        raise InputError("name the token (1-200 characters)", field="--name")
    if not scopes or len(scopes) > MAX_SCOPES:
        raise InputError(f"give 1-{MAX_SCOPES} scopes", field="--scope")
    scopes = list(dict.fromkeys(valid_scope(s, field="--scope") or "" for s in scopes))
    token_id, secret = secrets.token_hex(8), secrets.token_urlsafe(32)
    store.write("tokens/create", id=token_id, token_name=name, hash=_digest(secret),
                scopes=scopes, read_only=read_only, now=now)
    return NewToken(token=f"gm_{token_id}_{secret}",
                    info=TokenInfo(id=token_id, name=name, scopes=scopes,
                                   read_only=read_only, created_at=now))


def grant(store: Store, token: str) -> Grant | None:
    """What `token` may do, or None for a malformed, unknown or revoked one."""
    found = _TOKEN.fullmatch(token)
    if found is None:
        return None
    rows = store.read("tokens/grant", id=found.group(1))
    if not rows or not hmac.compare_digest(rows[0]["hash"], _digest(found.group(2))):
        return None
    row = rows[0]
    return Grant(id=found.group(1), name=row["name"], scopes=row["scopes"],
                 read_only=row["read_only"])


def listed(store: Store) -> list[TokenInfo]:
    """Every token, live and revoked, oldest first."""
    return [TokenInfo(**{**r, "created_at": r["created_at"].to_native(),
                         "revoked_at": r["revoked_at"] and r["revoked_at"].to_native()})
            for r in store.read("tokens/list")]


def revoke(store: Store, token_id: str, *, now: datetime) -> None:
    """Revoke a live token by its id; NotFoundError if there is none."""
    if not store.write("tokens/revoke", id=token_id, now=now):
        raise NotFoundError(f"no live token {token_id!r}")


def live(store: Store) -> int:
    """How many tokens are live."""
    return int(store.read("tokens/live_count")[0]["live"])


class TokenBook:
    """The service's tokens in one graph, as a memory's `tokens`: make, check, list and
    revoke them (the service and `graphmem token` use it; a memory's users need not)."""

    def __init__(self, store: Callable[[], Store], now: Callable[[], datetime]) -> None:
        self._store, self._now = store, now

    def create(self, *, name: str, scopes: list[str], read_only: bool = False) -> NewToken:
        """Make a token for `scopes` (shown once; only its hash is kept)."""
        return create(self._store(), name=name, scopes=scopes, read_only=read_only,
                      now=self._now())

    def grant(self, token: str) -> Grant | None:
        """What a token may do, or None if it is unknown or revoked."""
        return grant(self._store(), token)

    def listed(self) -> list[TokenInfo]:
        """Every token (never a secret), oldest first."""
        return listed(self._store())

    def revoke(self, token_id: str) -> None:
        """Revoke a token by id, from the next request on."""
        revoke(self._store(), token_id, now=self._now())

    def live(self) -> int:
        """How many tokens are live."""
        return live(self._store())
