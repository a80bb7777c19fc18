// recall/vector_scan — exact cosine over one scope's embedded memories.
// Used when the index's approximate top list holds too few of this scope's memories:
// recall must never miss a memory because other scopes crowded the index.
// Params: $k (int), $vector (list of float), $scope (string), $lifecycles (list of string).
// Returns: memory (map of properties without the embedding), relevance (cosine, -1..1).
MATCH (m:Memory)
WHERE m.scope = $scope AND m.lifecycle IN $lifecycles AND m.embedding IS NOT NULL
WITH m, vector.similarity.cosine(m.embedding, $vector) AS score
ORDER BY score DESC
LIMIT $k
RETURN m {.*, embedding: null} AS memory, 2 * score - 1 AS relevance
