// maintenance/covering_semantic@search — maintenance/covering_semantic on Neo4j 2026: the
// index keeps to the scope's active semantic memories of that visibility itself (SEARCH with in-index filters).
// Params: $fetch, $vector, $scope, $visibility, $min_cosine.
// Returns: id, cosine — at most one row.
MATCH (node:Memory)
  SEARCH node IN (VECTOR INDEX vector_index_Memory_embedding FOR $vector
    WHERE node.scope = $scope AND node.kind = 'semantic' AND node.lifecycle = 'active'
      AND node.visibility = $visibility
    LIMIT $fetch)
// The exact cosine: the index's scores are quantized.
WITH node, 2 * vector.similarity.cosine(node.embedding, $vector) - 1 AS cosine
WHERE cosine > $min_cosine
RETURN node.id AS id, cosine
ORDER BY cosine DESC
LIMIT 1
