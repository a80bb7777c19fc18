// admin/unembedded_contexts — the turns of a scope whose context has no vector (written
// before contexts had one, or whose turn before was forgotten): `reembed` makes them.
// Params: $scope.
// Returns: id, context.
MATCH (m:Memory {scope: $scope})
WHERE m.context IS NOT NULL AND m.context_embedding IS NULL AND m.embedding IS NOT NULL
RETURN m.id AS id, m.context AS context
ORDER BY id
