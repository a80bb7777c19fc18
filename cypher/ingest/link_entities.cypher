// ingest/link_entities — (:Memory)-[:MENTIONS]->(:Entity) for each extracted entity.
// Each entity of the batch is merged once; when a memory's text was replaced, the
// mentions it no longer makes are removed. Each touched entity's `degree` (memories that
// mention it) is kept current, so recall can damp hubs without counting at query time.
// Params: $entities: list of {key, name, type}; $rows: list of {id, replace (bool),
//         keys (list of entity keys)}.
// Returns: nothing.
CALL () {
  UNWIND $entities AS x
  MERGE (e:Entity {key: x.key})
    ON CREATE SET e.name = x.name, e.type = x.type
}
UNWIND $rows AS r
MATCH (m:Memory {id: r.id})
CALL (m, r) {
  WITH m, r
  WHERE r.replace
  MATCH (m)-[stale:MENTIONS]->(e:Entity)
  WHERE NOT e.key IN r.keys
  DELETE stale
}
CALL (m, r) {
  UNWIND r.keys AS key
  MATCH (e:Entity {key: key})
  MERGE (m)-[:MENTIONS]->(e)
}
WITH count(*) AS linked
CALL () {
  UNWIND $entities AS x
  MATCH (e:Entity {key: x.key})
  SET e.degree = COUNT { (e)<-[:MENTIONS]-(:Memory) }
}
RETURN linked
