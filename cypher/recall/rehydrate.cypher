// recall/rehydrate — a cold or stub memory that a recall returned comes back hot: its
// text's fresh embedding returns it to the vector index (its summary, if any, stays).
// Written after the recall, by its reinforcement: only while the scope is still of the
// model $model that embedded them (read under the scope's lock; one written before
// models were recorded: $legacy), so a scope another process moved meanwhile gets no
// vector of the old model (docs/decisions.md, "A scope knows its model").
// Params: $scope, $rows (list of {id, embedding}), $now, $model, $legacy.
// Returns: nothing.
{{lock_scope}}
OPTIONAL MATCH (s:Scope {name: $scope})
WITH coalesce(s.model, $legacy) = $model AS same
UNWIND CASE WHEN same THEN $rows ELSE [] END AS r
MATCH (m:Memory {id: r.id, scope: $scope})
  USING INDEX SEEK m:Memory(scope, id)
WHERE m.tier <> 'hot'
SET m.tier = 'hot', m.rehydrated_at = $now
REMOVE m:Cold:Stub
WITH m, r
CALL db.create.setNodeVectorProperty(m, 'embedding', r.embedding)
