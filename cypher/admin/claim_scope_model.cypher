// admin/claim_scope_model — record the embedding model of a scope that has none yet (its
// first write), and return the scope's model: the one given, or the one another process
// recorded first.
// Params: $scope, $model.
// Returns: model.
MERGE (s:Scope {name: $scope})
SET s.model = coalesce(s.model, $model)
RETURN s.model AS model
