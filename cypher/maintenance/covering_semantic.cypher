// maintenance/covering_semantic — an active semantic memory of $scope that already says
// what a consolidation would (cosine above $min_cosine), if any, and is as visible as the
// group it would sum up.
// Params: $vector_index, $fetch, $vector, $scope, $visibility, $min_cosine.
// Returns: id, cosine — at most one row.
CALL db.index.vector.queryNodes($vector_index, $fetch, $vector) YIELD node, score
WITH node, 2 * score - 1 AS cosine
WHERE node.scope = $scope AND node.kind = 'semantic' AND node.lifecycle = 'active'
  AND node.visibility = $visibility
  AND cosine > $min_cosine
RETURN node.id AS id, cosine
ORDER BY cosine DESC
LIMIT 1
