// ingest/link_entities — (:Memory)-[:MENTIONS]->(:Entity) for each extracted entity, and
// (:Memory)-[:ABOUT]->(:Entity) for its subject (a title, a turn's speaker: what recall
// matches against the entities a query names).
// Entities belong to one scope (key = $prefix + the extractor's key, `ref` = the
// extractor's key): no node is shared between tenants, so nothing about one scope's
// memories (how many mention a name) shows in another's recall. Each entity of the batch
// is merged once; when a memory's text was replaced, the mentions it no longer makes are
// removed. Each touched entity's `degree` (memories that mention it or are about it) and
// `public_degree` (public ones: what a reader mounting the scope as a layer may count)
// are kept current, so recall can damp hubs without counting at query time: a new link
// of a memory to an entity it had none to adds one (the entity is locked before it is
// read), and the entities of a rewritten memory, whose links and visibility may have
// changed, are counted again, and an entity the rewrite leaves unnamed is deleted.
// (Counting every touched entity again made each batch cost
// the degree of the scope's hubs: an import slowed as it grew, 386 to ~150 records/s
// from 20,000 to 500,000 records; docs/results.md.)
// Params: $scope, $prefix (the scope's entity-key prefix), $entities: list of {key, name,
//         type}; $rows: list of {id, replace (bool), keys (list of extractor keys),
//         subjects (list of keys)}.
// Every lookup by key is a forced seek (USING INDEX SEEK): on a server with stale index
// statistics the planner met a plain index hint with a scan of the whole (scope, id)
// index for every row, behind an Eager, and ran out of memory on a 500-row batch; a
// memory's entities are reached from it (no label on `e`: only entities are mentioned),
// where it had read every entity through the index on `ref` (docs/decisions.md, "A
// lookup by key is always an index seek").
// Returns: linked.
CALL () {
  UNWIND $entities AS x
  MERGE (e:Entity {key: $prefix + x.key})
    ON CREATE SET e.name = x.name, e.type = x.type, e.ref = x.key, e.scope = $scope
}
UNWIND $rows AS r
MATCH (m:Memory {id: r.id, scope: $scope})
  USING INDEX SEEK m:Memory(scope, id)
CALL (m, r) {
  WITH m, r
  WHERE r.replace
  MATCH (m)-[stale:MENTIONS]->(e)
  WHERE NOT e.ref IN r.keys
  DELETE stale
  WITH DISTINCT e
  SET e.degree = {{degree}},
      e.public_degree = {{public_degree}}
  RETURN collect(e) AS unmentioned
}
CALL (m, r) {
  UNWIND r.keys AS key
  MATCH (e:Entity {key: $prefix + key})
  SET e.degree = coalesce(e.degree, 0)
  WITH m, r, e, EXISTS { (m)-[:MENTIONS|ABOUT]->(e) } AS had
  MERGE (m)-[:MENTIONS]->(e)
  SET e.degree = e.degree + CASE WHEN had OR r.replace THEN 0 ELSE 1 END,
      e.public_degree = coalesce(e.public_degree, 0) +
        CASE WHEN had OR r.replace OR m.visibility <> 'public' THEN 0 ELSE 1 END
}
CALL (m, r) {
  WITH m, r
  WHERE r.replace
  MATCH (m)-[stale:ABOUT]->(e)
  WHERE NOT e.ref IN r.subjects
  DELETE stale
  WITH DISTINCT e
  SET e.degree = {{degree}},
      e.public_degree = {{public_degree}}
  RETURN collect(e) AS unabout
}
CALL (m, r) {
  UNWIND r.subjects AS key
  MATCH (e:Entity {key: $prefix + key})
  SET e.degree = coalesce(e.degree, 0)
  WITH m, r, e, EXISTS { (m)-[:MENTIONS|ABOUT]->(e) } AS had
  MERGE (m)-[:ABOUT]->(e)
  SET e.degree = e.degree + CASE WHEN had OR r.replace THEN 0 ELSE 1 END,
      e.public_degree = coalesce(e.public_degree, 0) +
        CASE WHEN had OR r.replace OR m.visibility <> 'public' THEN 0 ELSE 1 END
}
CALL (m, r) {
  WITH m, r
  WHERE r.replace
  MATCH (m)-[:MENTIONS|ABOUT]->(e)
  WITH DISTINCT e
  SET e.degree = {{degree}},
      e.public_degree = {{public_degree}}
}
// An entity a rewritten memory no longer names, and no other memory does, goes: its
// name came from the old text, which a hard forget of the memory must leave nowhere
// (the stored version keeps the old text, and forget deletes versions).
WITH count(*) AS linked, collect(unmentioned + unabout) AS dropped
CALL (dropped) {
  UNWIND dropped AS list
  UNWIND list AS e
  WITH DISTINCT e
  WHERE NOT EXISTS { (e)<-[:MENTIONS|ABOUT]-(:Memory) }
  DETACH DELETE e
}
RETURN linked
