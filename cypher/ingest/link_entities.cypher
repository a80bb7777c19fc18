// ingest/link_entities — (:Memory)-[:MENTIONS]->(:Entity) for each extracted entity.
// When a memory's text was replaced, mentions it no longer makes are removed first.
// Params: $rows: list of {id, replace (bool), keys (list of string),
//         entities (list of {key, name, type})}.
// Returns: nothing.
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
  UNWIND r.entities AS x
  MERGE (e:Entity {key: x.key})
    ON CREATE SET e.name = x.name, e.type = x.type
  MERGE (m)-[:MENTIONS]->(e)
}
