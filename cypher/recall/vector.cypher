// recall/vector — approximate nearest neighbours from the vector index, filtered.
// The index cannot filter, so the caller over-fetches ($fetch > $k) and falls back to
// recall/vector_scan when fewer than $k survive the scope and lifecycle filters.
// Params: $index (vector index name), $fetch (int), $k (int), $vector (list of float),
//         $scope (string), $lifecycles (list of string).
// Returns: memory (map of properties without the embedding), relevance (cosine, -1..1).
CALL db.index.vector.queryNodes($index, $fetch, $vector) YIELD node AS m, score
WHERE m.scope = $scope AND m.lifecycle IN $lifecycles
RETURN m {.*, embedding: null} AS memory, 2 * score - 1 AS relevance
ORDER BY relevance DESC
LIMIT $k
