// recall/rehydrate — a cold or stub memory that a recall returned comes back hot: its
// text's fresh embedding returns it to the vector index (its summary, if any, stays).
// Params: $scope, $rows (list of {id, embedding}), $now.
// Returns: nothing.
{{lock_scope}}
UNWIND $rows AS r
MATCH (m:Memory {id: r.id, scope: $scope})
  USING INDEX SEEK m:Memory(scope, id)
WHERE m.tier <> 'hot'
SET m.tier = 'hot', m.rehydrated_at = $now
REMOVE m:Cold:Stub
WITH m, r
CALL db.create.setNodeVectorProperty(m, 'embedding', r.embedding)
