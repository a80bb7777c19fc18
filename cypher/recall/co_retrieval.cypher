// recall/co_retrieval — memories returned together grow together: existing ASSOCIATED
// edges among the returned set gain $step weight (capped at 1), and the best few hits
// ($create pairs) get a co_retrieval edge of weight $initial when they had none.
// Both ends must be memories of $scope: an edge never crosses scopes.
// Params: $scope, $strengthen (list of {a, b}), $create (list of {a, b}), $step, $initial, $now.
// Returns: strengthened, created.
{{lock_scope}}
CALL () {
  UNWIND $strengthen AS p
  MATCH (x1:Memory {id: p.a, scope: $scope})-[r:ASSOCIATED]-(x2:Memory {id: p.b, scope: $scope})
    USING INDEX SEEK x1:Memory(scope, id) USING INDEX SEEK x2:Memory(scope, id)
  SET r.weight = CASE WHEN r.weight + $step > 1.0 THEN 1.0 ELSE r.weight + $step END,
      r.count = coalesce(r.count, 1) + 1,
      r.strengthened_at = $now
  RETURN count(r) AS strengthened
}
CALL () {
  UNWIND $create AS p
  MATCH (a:Memory {id: p.a, scope: $scope}), (b:Memory {id: p.b, scope: $scope})
    USING INDEX SEEK a:Memory(scope, id) USING INDEX SEEK b:Memory(scope, id)
  WHERE NOT EXISTS { (a)-[:ASSOCIATED]-(b) }
  CREATE (a)-[:ASSOCIATED {kind: 'co_retrieval', weight: $initial, created_at: $now,
                           strengthened_at: $now, count: 1}]->(b)
  RETURN count(*) AS created
}
RETURN strengthened, created
