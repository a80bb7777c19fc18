// migrations/007_scope_entities — move a store written before entities were per scope onto
// per-scope entities: each global Entity (no `scope`) is split into one Entity per scope
// that mentions it (key = the scope's prefix + the old key), its mentions moved there,
// degrees counted, and the global node removed. Idempotent: a store without global
// entities is left as it is.
// Params: none (the prefix is the memory's scope_key + '|', as `schema.entity_prefix`).
// Returns: split (global entities removed).
MATCH (old:Entity)
WHERE old.scope IS NULL
CALL (old) {
  MATCH (m:Memory)-[r:MENTIONS]->(old)
  MERGE (e:Entity {key: m.scope_key + '|' + old.key})
    ON CREATE SET e.ref = old.key, e.scope = m.scope, e.name = old.name, e.type = old.type
  MERGE (m)-[:MENTIONS]->(e)
  DELETE r
  WITH DISTINCT e
  SET e.degree = {{degree}},
      e.public_degree = {{public_degree}}
} IN TRANSACTIONS OF 500 ROWS
DETACH DELETE old
RETURN count(*) AS split
