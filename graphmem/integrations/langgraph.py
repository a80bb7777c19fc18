"""graphmem as LangGraph's long-term memory: `GraphMemStore`, a real
`langgraph.store.base.BaseStore`, so a graph written against `InMemoryStore` runs
unchanged on graphmem's graph (docs/integrations.md).

A namespace is a scope: `root/label/label…`, each label escaped (every character but
letters, digits, `_`, `:` and `-` becomes `@` and its UTF-8 bytes in hex), so the
mapping reverses exactly and no label can reach another namespace. A key is a memory
id, escaped the same way (named by its hash if that is too long; the key is kept). The
value is kept whole, as JSON in the memory's metadata (`store_value`), and its text — the
index fields, by default `text` or `content`, else the whole value as JSON — is what
graphmem embeds, links and recalls. A put of an
existing key rewrites the memory (its earlier text stays in its history); a delete is a
hard forget. Search with a query is graphmem's default recall over the namespace and
every namespace below it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)
from langgraph.store.base.embed import get_text_at_path, tokenize_path

from graphmem.api import GraphMem
from graphmem.base.clock import utcnow
from graphmem.base.errors import InputError, NotFoundError
from graphmem.base.gates import credential_reason, secret_reason
from graphmem.base.knobs import check_scope
from graphmem.base.types import Hit, MemoryOut
from graphmem.base.verbs import agent_written
from graphmem.base.vocabulary import MAX_TOP_K
from graphmem.integrations.names import escape, hashed, unescape
from graphmem.read.candidates import deeper

#: The scope every namespace of a store lives under, unless the store is given another.
ROOT = "langgraph"
#: Metadata the store keeps beside the text: the value, the key, when it was first put,
#: and whether it is kept out of query search (`index=False`).
VALUE, KEY = "store_value", "store_key"
CREATED, UPDATED = "store_created_at", "store_updated_at"
UNINDEXED = "store_unindexed"
#: The longest memory id; a longer escaped key is named by its hash (the key is kept).
MAX_ID = 200
#: How many more hits than asked a filtered search recalls before filtering, at first.
FILTER_DEPTH = 4


def memory_id(key: str) -> str:
    """The id of the memory that holds `key` in its namespace."""
    escaped = escape(key, "key") or "@"  # "@" alone is no escape: the empty key
    if len(escaped) <= MAX_ID:
        return escaped
    return hashed(key)


def matches(value: Any, wanted: Any) -> bool:
    """Whether a stored value field matches a search filter's value, as InMemoryStore
    compares them: nested maps field by field, lists item by item, `$eq $ne $gt $gte
    $lt $lte` operators, anything else by equality."""
    if isinstance(wanted, dict):
        if any(k.startswith("$") for k in wanted):
            return all(_operator(value, op, arg) for op, arg in wanted.items())
        return isinstance(value, dict) and all(matches(value.get(k), v)
                                               for k, v in wanted.items())
    if isinstance(wanted, list | tuple):
        return (isinstance(value, list | tuple) and len(value) == len(wanted)
                and all(matches(v, w) for v, w in zip(value, wanted, strict=True)))
    return bool(value == wanted)


def field(value: dict[str, Any], key: str) -> Any:
    """A filter key's field of a value: the key itself, else its dotted path
    (`user.name`), as LangGraph's SQL stores read it; None when there is none."""
    if key in value:
        return value[key]
    node: Any = value
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _operator(value: Any, op: str, arg: Any) -> bool:
    if op == "$eq":
        return bool(value == arg)
    if op == "$ne":
        return bool(value != arg)
    compare = {"$gt": float.__gt__, "$gte": float.__ge__, "$lt": float.__lt__,
               "$lte": float.__le__}.get(op)
    if compare is None:
        raise ValueError(f"unsupported filter operator {op!r}")
    try:
        return bool(compare(float(value), float(arg)))
    except (TypeError, ValueError):
        return False  # a field that is missing or no number matches no comparison


def _condition(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """Whether `namespace` meets a list_namespaces condition ("*" matches any label)."""
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise ValueError(f"unsupported match type {condition.match_type!r}")
    return all(p == "*" or n == p for n, p in pairs)


class GraphMemStore(BaseStore):
    """A LangGraph `BaseStore` on graphmem: values put, got, searched and deleted by
    namespace and key, with graphmem's recall behind `search(query=…)`."""

    def __init__(self, mem: GraphMem | None = None, *, root: str | None = None,
                 index: dict[str, Any] | None = None) -> None:
        """A store on `mem` (or a GraphMem from the usual settings, closed with the store),
        its namespaces under the scope `root` (default ROOT); `index={"fields": [...]}`
        names the value fields embedded (LangGraph's convention; the model is graphmem's)."""
        self._own = mem is None
        self.mem = mem or GraphMem()
        self.root = check_scope(root or ROOT)
        self.fields = list((index or {}).get("fields") or [])

    def close(self) -> None:
        """Close the GraphMem the store opened itself (one it was given stays open)."""
        if self._own:
            self.mem.close()

    # The two methods LangGraph asks of a store; the rest of BaseStore is built on them.

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run `ops` in order of reads, then the puts: as InMemoryStore, reads in a batch
        see the store as it was before the batch's puts (the last put of a key wins)."""
        ops = list(ops)
        for op in ops:
            self._check(op)
        results: list[Result] = []
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._get(op))
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list(op))
            elif isinstance(op, PutOp):
                puts[(op.namespace, op.key)] = op
                results.append(None)
            else:
                raise ValueError(f"unknown operation {type(op).__name__}")
        if puts:
            self._put(list(puts.values()))
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """`batch` on a worker thread, so the event loop keeps running."""
        return await asyncio.to_thread(self.batch, list(ops))

    # Namespaces and keys

    def scope(self, namespace: Sequence[str]) -> str:
        """The scope that holds `namespace` (the root for the empty one)."""
        try:
            name = "/".join([self.root, *(escape(label, "namespace") for label in namespace)])
            return check_scope(name)
        except (ValueError, InputError) as e:
            raise InvalidNamespaceError(f"namespace {tuple(namespace)!r} cannot be a scope: "
                                        f"{e}") from None

    def namespace(self, scope: str) -> tuple[str, ...]:
        """The namespace a scope of this store holds."""
        return tuple(unescape(p) for p in scope[len(self.root) + 1:].split("/"))

    def _holds(self, scope: str) -> bool:
        """Whether this store could have written `scope`: its labels unescape and escape
        back to themselves. A scope another door wrote under the root (`<root>/@FF`) is
        not a namespace, and must not make every listing and search fail."""
        if scope == self.root:
            return True
        try:
            return self.scope(self.namespace(scope)) == scope
        except (UnicodeDecodeError, InvalidNamespaceError):
            return False

    def _check(self, op: Op) -> None:
        labels = {GetOp: "namespace", PutOp: "namespace", SearchOp: "namespace_prefix"}
        paths = ([getattr(op, labels[type(op)])] if type(op) in labels
                 else [c.path for c in getattr(op, "match_conditions", None) or ()])
        for path in paths:
            for label in path:
                if not isinstance(label, str) or not label or "." in label or "\x00" in label:
                    raise InvalidNamespaceError(
                        f"invalid namespace label {label!r} in {tuple(path)!r}: labels are "
                        "non-empty strings without '.' or NUL")

    # Reads

    def _get(self, op: GetOp) -> Item | None:
        scope = self.scope(op.namespace)
        found = [m for m in self.mem.get([memory_id(op.key)], scope=scope)
                 if m.lifecycle == "active" and m.version_of is None]
        return self._item(found[0]) if found else None

    def _item(self, m: MemoryOut | Hit) -> Item:
        """The item a memory (or a recall hit) of this store holds."""
        raw, key, created, updated = (m.metadata.get(k)
                                      for k in (VALUE, KEY, CREATED, UPDATED))
        written = m.created_at or utcnow()
        return Item(namespace=self.namespace(m.scope),
                    key=key if isinstance(key, str) else unescape(m.id),
                    value=json.loads(raw) if isinstance(raw, str) else {"text": m.text},
                    created_at=datetime.fromisoformat(created) if created else written,
                    updated_at=datetime.fromisoformat(updated) if updated else written)

    def _found(self, m: MemoryOut | Hit, score: float | None = None) -> SearchItem:
        """A search result: the item, and its score when a query ranked it."""
        item = self._item(m)
        return SearchItem(namespace=item.namespace, key=item.key, value=item.value,
                          created_at=item.created_at, updated_at=item.updated_at,
                          score=score)

    def _scopes_under(self, top: str) -> list[str]:
        """`top` and the scopes below it that hold an item (one query for both)."""
        return [s for s in self.mem.scopes(top)
                if (s == top or s.startswith(top + "/")) and self._holds(s)]

    def _search(self, op: SearchOp) -> list[SearchItem]:
        top = self.scope(op.namespace_prefix)
        scopes = self._scopes_under(top)
        if not scopes:
            return []
        want = op.offset + op.limit

        def wanted(item: SearchItem) -> bool:
            return all(matches(field(item.value, k), v) for k, v in (op.filter or {}).items())

        if not op.query:
            return self._newest(top, scopes, op, wanted)
        if want > MAX_TOP_K:  # recall ranks that many at most: say so, rather than []
            raise InputError(f"a search with a query ranks at most {MAX_TOP_K} items; "
                             f"offset + limit is {want}", field="offset")
        depth = want * FILTER_DEPTH if op.filter else want
        depth = min(depth, MAX_TOP_K)
        while True:
            result = self.mem.recall(op.query, scope=top,
                                     layers=[s for s in scopes if s != top],
                                     layer_factor=1.0, top_k=depth)
            items = [self._found(h, score=h.score) for h in result.hits
                     if not h.metadata.get(UNINDEXED)]
            kept = [i for i in items if wanted(i)]
            if len(kept) >= want or len(result.hits) < depth or depth == MAX_TOP_K:
                return kept[op.offset:want]
            depth = deeper(depth, want, len(kept), MAX_TOP_K)  # recall's own rule

    def _newest(self, top: str, scopes: list[str], op: SearchOp,
                wanted: Callable[[SearchItem], bool]) -> list[SearchItem]:
        """Items newest first (no query), filtered page by page: all of `top`'s, and the
        public ones of the namespaces below it, as a query's search reads them."""
        kept: list[SearchItem] = []
        page, offset = max(op.offset + op.limit, 100), 0
        while len(kept) < op.offset + op.limit:
            found = self.mem.recent(top, layers=[s for s in scopes if s != top],
                                    order=UPDATED, offset=offset, limit=page)
            kept += [i for i in (self._found(m) for m in found) if wanted(i)]
            if len(found) < page:
                break
            offset += page
        return kept[op.offset:op.offset + op.limit]

    def _list(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        namespaces = [self.namespace(s) for s in self.mem.scopes(self.root + "/")
                      if self._holds(s)]
        namespaces = [ns for ns in namespaces
                      if all(_condition(c, ns) for c in op.match_conditions or ())]
        if op.max_depth is not None:
            namespaces = list({ns[:op.max_depth] for ns in namespaces})
        return sorted(namespaces)[op.offset:op.offset + op.limit]

    # Writes

    def _text(self, op: PutOp, value: dict[str, Any]) -> str:
        """What graphmem embeds of a value: the op's index fields, the store's, or `text`
        / `content`; else the whole value as JSON."""
        fields = op.index if isinstance(op.index, list) else self.fields
        texts: list[str] = []
        for path in fields:
            texts += (get_text_at_path(value, path) if path == "$"
                      else get_text_at_path(value, tokenize_path(path)))
        if not fields:
            texts = [v for k in ("text", "content")
                     if isinstance(v := value.get(k), str) and v.strip()][:1]
        text = "\n".join(t for t in texts if t.strip())
        return text or json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)

    def _put(self, puts: list[PutOp]) -> None:
        """Write the batch's puts: every value checked first (nothing is written if one
        is refused), then each namespace's puts as one graphmem batch, then deletes."""
        by_scope: dict[str, list[PutOp]] = {}
        for op in puts:
            by_scope.setdefault(self.scope(op.namespace), []).append(op)
        now = self.mem.now()
        writes: dict[str, list[dict[str, Any]]] = {}
        for scope, ops in by_scope.items():
            kept = [op for op in ops if op.value is not None]
            existing = {m.id: m for m in self.mem.get([memory_id(op.key) for op in kept],
                                                      scope=scope, limit=len(kept) or 1)}
            writes[scope] = [self._record(op, existing.get(memory_id(op.key)), now)
                             for op in kept]
        for scope, records in writes.items():
            if records:
                report = self.mem.remember(records, scope=scope, signal_gate=False,
                                           allow_forgotten=True, source="<langgraph>")
                if report.rejected:  # never a put that silently stored nothing
                    first = report.rejected[0]
                    raise InputError(f"namespace {self.namespace(scope)!r}: a put was not "
                                     f"stored: {first.reason}")
        for scope, ops in by_scope.items():
            for op in ops:
                if op.value is None:
                    # Deleting what is not there is no error, as in InMemoryStore.
                    with contextlib.suppress(NotFoundError):
                        self.mem.forget(memory_id(op.key), hard=True, scope=scope)

    def _record(self, op: PutOp, existing: MemoryOut | None,
                now: datetime) -> dict[str, Any]:
        """The graphmem record of one put, or the InputError that names why it cannot be."""
        where = f"namespace {tuple(op.namespace)!r}, key {op.key!r}"
        if not isinstance(op.value, dict):
            raise InputError(f"{where}: a value is a dict, got {type(op.value).__name__}")
        try:
            raw = json.dumps(op.value, ensure_ascii=False)
        except (TypeError, ValueError) as e:
            raise InputError(f"{where}: the value is not JSON: {e}") from None
        text = self._text(op, op.value)
        # The key names the item, as an id does: known credentials only (ids look random).
        for reason in (credential_reason(op.key), secret_reason(text), secret_reason(raw)):
            if reason:
                raise InputError(f"{where}: not stored: it {reason}")
        created = ((existing.metadata.get(CREATED) if existing and existing.lifecycle
                    == "active" else None) or now.isoformat())
        metadata: dict[str, Any] = {VALUE: raw, CREATED: created, UPDATED: now.isoformat()}
        if unescape(memory_id(op.key)) != op.key:  # a hashed id does not give the key back
            metadata[KEY] = op.key
        if op.index is False:
            metadata[UNINDEXED] = True
        session = op.value.get("session")
        return agent_written({
            "id": memory_id(op.key), "text": text, "metadata": metadata,
            **({"session": session} if isinstance(session, str) and session else {})})
