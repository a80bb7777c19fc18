// fragments/vector_neighbours — the vector index's $index_fetch nearest memories to
// $vector, as node and score ((1 + cosine) / 2), for the caller to filter: Neo4j 5.26's
// vector index cannot filter, so other scopes may fill the list. Written where a query
// says {{vector_neighbours}}; the "search" variant (vector_neighbours@search) filters in
// the index.
CALL db.index.vector.queryNodes($vector_index, $index_fetch, $vector) YIELD node, score
