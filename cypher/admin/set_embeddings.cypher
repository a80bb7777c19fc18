// admin/set_embeddings — replace memories' vectors (`reembed`, inside its one transaction
// per scope with admin/set_scope_model, so readers see the old vectors or the new ones).
// Params: $scope, $rows (list of {id, embedding}).
// Returns: n (vectors replaced).
{{lock_scope}}
UNWIND $rows AS r
MATCH (m:Memory {id: r.id, scope: $scope})
  USING INDEX SEEK m:Memory(scope, id)
WHERE m.embedding IS NOT NULL
CALL db.create.setNodeVectorProperty(m, 'embedding', r.embedding)
RETURN count(m) AS n
