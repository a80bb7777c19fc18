// edit/link — a manual association between two memories of one scope: created, or its
// weight set if they are already linked (whatever kind the link had becomes manual:
// manual links are never pruned).
// Params: $a, $b (ids), $scope, $weight, $now.
// Returns: a, b, weight, created (bool) — no row if either is missing from the scope.
{{lock_scope}}
MATCH (a:Memory {id: $a, scope: $scope}), (b:Memory {id: $b, scope: $scope})
  USING INDEX SEEK a:Memory(scope, id) USING INDEX SEEK b:Memory(scope, id)
OPTIONAL MATCH (a)-[old:ASSOCIATED]-(b)
WITH a, b, head(collect(old)) AS old
CALL (a, b, old) {
  WITH a, b, old WHERE old IS NULL
  CREATE (a)-[r:ASSOCIATED {kind: 'manual', weight: $weight, created_at: $now, count: 1}]->(b)
  RETURN r, true AS created
  UNION
  WITH old WHERE old IS NOT NULL
  SET old.kind = 'manual', old.weight = $weight, old.strengthened_at = $now
  RETURN old AS r, false AS created
}
RETURN a.id AS a, b.id AS b, r.weight AS weight, created
