// ingest/snapshot — keep each memory's current version before an update changes its text:
// a copy with id "<id>@v<n>" (shadowed, cold: no embedding, version_of = id) that the
// memory SUPERSEDES (and that supersedes the version before it), so `history` walks
// the chain newest to oldest and exact text still finds every version. It runs inside
// the update's own transaction (the write path), so an update refused there keeps none.
// Params: $rows (list of {id, text: the new text}), $scope, $now.
// Returns: id, version (the copy's id) — one row per memory whose text changes.
{{lock_scope}}
UNWIND $rows AS r
MATCH (m:Memory {id: r.id, scope: $scope})
  USING INDEX SEEK m:Memory(scope, id)
WITH m WHERE m.text <> r.text
WITH m, coalesce(m.version, 1) AS n
CREATE (v:Memory)
// A version keeps the text as it was, not the turn's place or context: those are the
// memory's, and the context quotes another turn (a forget of that turn must reach it).
SET v = m {.*, id: m.id + '@v' + toString(n), embedding: null, context_embedding: null,
           version_of: m.id, version: n, lifecycle: 'shadowed', tier: 'cold', shadowed_at: $now,
           valid_until: $now, context: null, position: null, session: null}
SET v:$(toUpper(left(m.kind, 1)) + substring(m.kind, 1)), v:Cold
SET m.version = n + 1
CREATE (m)-[:SUPERSEDES {kind: 'version', at: $now}]->(v)
WITH m, v
// The chain stays a chain: the previous version now hangs off this one.
CALL (m, v) {
  MATCH (m)-[old:SUPERSEDES {kind: 'version'}]->(prev:Memory)
  WHERE prev <> v
  CREATE (v)-[:SUPERSEDES {kind: 'version', at: old.at}]->(prev)
  DELETE old
}
RETURN m.id AS id, v.id AS version
