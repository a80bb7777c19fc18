// ingest/associate — ASSOCIATED edges between memories (synaptic at ingest, or manual),
// stored once per pair whatever the direction. A pair with a memory created in this
// transaction cannot have an edge yet, so it is CREATEd ($fresh); other pairs are merged,
// and an existing edge is left as it is, so re-ingesting the same input adds nothing.
// Both ends are memories of $scope (ids name memories within a scope).
// Params: $scope, $fresh, $rows: lists of {a, b, kind, weight (float), at (datetime), by
// (the id of the row that asked for the edge)}.
// Returns: by (for each edge created, who asked for it: a write's report counts its own).
CALL () {
  UNWIND $fresh AS l
  MATCH (a:Memory {id: l.a, scope: $scope}), (b:Memory {id: l.b, scope: $scope})
    USING INDEX SEEK a:Memory(scope, id) USING INDEX SEEK b:Memory(scope, id)
  CREATE (a)-[:ASSOCIATED {kind: l.kind, weight: l.weight, created_at: l.at,
                           strengthened_at: l.at, count: 1}]->(b)
  RETURN collect(l.by) AS fresh
}
CALL () {
  UNWIND $rows AS l
  MATCH (a:Memory {id: l.a, scope: $scope}), (b:Memory {id: l.b, scope: $scope})
    USING INDEX SEEK a:Memory(scope, id) USING INDEX SEEK b:Memory(scope, id)
  WHERE NOT EXISTS { (a)-[:ASSOCIATED]-(b) }
  CREATE (a)-[:ASSOCIATED {kind: l.kind, weight: l.weight, created_at: l.at,
                           strengthened_at: l.at, count: 1}]->(b)
  RETURN collect(l.by) AS merged
}
RETURN fresh + merged AS by
