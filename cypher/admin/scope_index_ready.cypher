// admin/scope_index_ready — the last step of a scope's own vector index: every memory
// has the label and the index is ONLINE, so recall and near-duplicate search may ask it.
// Params: $scope, $index.
// Returns: scope.
MATCH (s:Scope {name: $scope})
SET s.vector_index = $index
RETURN s.name AS scope
