// ingest/near_duplicates — for each new text, active memories of the same scope and kind
// whose embedding is at least $min_score similar (the index's score, (1 + cosine) / 2).
// The vector index cannot filter, so it is asked for $fetch neighbours per row: the
// scope's own index when it has one (graph/scope_indexes.py), else the shared one.
// Params: $index (vector index name), $fetch (int), $scope (string), $min_score (float),
//         $rows: list of {i (int), kind (string), embedding (list of float)}.
// Returns: i, id, score, confidence, sessions — best first per i.
OPTIONAL MATCH (own:Scope {name: $scope})
WITH coalesce(own.vector_index, $index) AS index
UNWIND $rows AS r
CALL db.index.vector.queryNodes(index, $fetch, r.embedding) YIELD node, score
WITH r, node, score
WHERE score >= $min_score AND node.scope = $scope AND node.kind = r.kind
  AND node.lifecycle = 'active'
OPTIONAL MATCH (node)-[:IN_SESSION]->(s:Session)
WITH r, node, score, collect(s.id) AS sessions
RETURN r.i AS i, node.id AS id, score, node.confidence AS confidence, sessions
ORDER BY i, score DESC
