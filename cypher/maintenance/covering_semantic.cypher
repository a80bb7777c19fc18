// maintenance/covering_semantic — an active semantic memory of $scope that already says
// what a consolidation would (cosine above $min_cosine), if any, and is as visible as the
// group it would sum up.
// Params: $vector_index, $fetch, $vector, $scope, $visibility, $min_cosine.
// Returns: id, cosine — at most one row.
CALL db.index.vector.queryNodes($vector_index, $fetch, $vector) YIELD node
WITH node
WHERE node.scope = $scope AND node.kind = 'semantic' AND node.lifecycle = 'active'
  AND node.visibility = $visibility
// The exact cosine: the index's scores are quantized.
WITH node, 2 * vector.similarity.cosine(node.embedding, $vector) - 1 AS cosine
WHERE cosine > $min_cosine
RETURN node.id AS id, cosine
ORDER BY cosine DESC
LIMIT 1
