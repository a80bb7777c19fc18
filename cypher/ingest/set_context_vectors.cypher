// ingest/set_context_vectors — each turn's context vector, made from its context as the
// writer read it: a context that changed since (a later statement of the same
// transaction, or `reembed` racing a forget) keeps none, and recall reads the two turns'
// vectors instead (graphmem/read/fusion.py, `mean_cosine`).
// Params: $scope, $rows (list of {id, context, embedding}).
// Returns: n (vectors set).
UNWIND $rows AS r
MATCH (m:Memory {id: r.id, scope: $scope})
  USING INDEX SEEK m:Memory(scope, id)
WHERE m.context = r.context
CALL db.create.setNodeVectorProperty(m, 'context_embedding', r.embedding)
RETURN count(m) AS n
