// ingest/link_entities — (:Memory)-[:MENTIONS]->(:Entity) for each extracted entity, and
// (:Memory)-[:ABOUT]->(:Entity) for its subject (a title, a turn's speaker: what recall
// matches against the entities a query names).
// Entities belong to one scope (key = $prefix + the extractor's key, `ref` = the
// extractor's key): no node is shared between tenants, so nothing about one scope's
// memories (how many mention a name) shows in another's recall. Each entity of the batch
// is merged once; when a memory's text was replaced, the mentions it no longer makes are
// removed. Each touched entity's `degree` (memories that mention it or are about it) and
// `public_degree` (public ones: what a reader mounting the scope as a layer may count)
// are kept current, so recall can damp hubs without counting at query time.
// Params: $scope, $prefix (the scope's entity-key prefix), $entities: list of {key, name,
//         type}; $rows: list of {id, replace (bool), keys (list of extractor keys),
//         subjects (list of keys)}.
// Returns: linked.
CALL () {
  UNWIND $entities AS x
  MERGE (e:Entity {key: $prefix + x.key})
    ON CREATE SET e.name = x.name, e.type = x.type, e.ref = x.key, e.scope = $scope
}
UNWIND $rows AS r
MATCH (m:Memory {id: r.id, scope: $scope})
  USING INDEX m:Memory(scope, id)
CALL (m, r) {
  WITH m, r
  WHERE r.replace
  MATCH (m)-[stale:MENTIONS]->(e:Entity)
  WHERE NOT e.ref IN r.keys
  DELETE stale
  WITH DISTINCT e
  SET e.degree = {{degree}},
      e.public_degree = {{public_degree}}
}
CALL (m, r) {
  UNWIND r.keys AS key
  MATCH (e:Entity {key: $prefix + key})
  MERGE (m)-[:MENTIONS]->(e)
}
CALL (m, r) {
  WITH m, r
  WHERE r.replace
  MATCH (m)-[stale:ABOUT]->(e:Entity)
  WHERE NOT e.ref IN r.subjects
  DELETE stale
  WITH DISTINCT e
  SET e.degree = {{degree}},
      e.public_degree = {{public_degree}}
}
CALL (m, r) {
  UNWIND r.subjects AS key
  MATCH (e:Entity {key: $prefix + key})
  MERGE (m)-[:ABOUT]->(e)
}
WITH count(*) AS linked
CALL () {
  UNWIND $entities AS x
  MATCH (e:Entity {key: $prefix + x.key})
  SET e.degree = {{degree}},
      e.public_degree = {{public_degree}}
}
RETURN linked
