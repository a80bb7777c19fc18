// admin/memory_by_id — one memory's stored properties, for inspection and tests.
// Params: $id (string), $scope (the memory's scope, or null: that id in every scope).
// Returns: memory (all properties but the embedding, plus embedding_size), or no row.
MATCH (m:Memory {id: $id})
WHERE $scope IS NULL OR m.scope = $scope
RETURN m {.*, embedding: null, context_embedding: null, embedding_size: size(m.embedding)} AS memory
