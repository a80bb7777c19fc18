// context/kind_counts — how many active memories a scope holds, per kind (the L0 line).
// Params: $scope (string).
// Returns: kind, memories.
MATCH (m:Memory)
WHERE m.scope = $scope AND m.lifecycle = 'active'
RETURN m.kind AS kind, count(m) AS memories
ORDER BY memories DESC, kind
