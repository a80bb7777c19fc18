// admin/set_scope_model — record that a scope's vectors are now all of $model (the last
// step of `reembed`, in the same transaction as the vectors).
// Params: $scope, $model.
// Returns: model.
MERGE (s:Scope {name: $scope})
SET s.model = $model
RETURN s.model AS model
