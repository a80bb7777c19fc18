// admin/count_memories — how many memories a scope holds (all scopes when $scope is null).
// Params: $scope (string or null).
// Returns: memories (int).
MATCH (m:Memory)
WHERE $scope IS NULL OR m.scope = $scope
RETURN count(m) AS memories
