// fragments/vector_neighbours — the vector index's $index_fetch nearest memories to
// $vector, as node and score ((1 + cosine) / 2), for the caller to filter: Neo4j 5.26's
// vector index cannot filter, so other scopes may fill the list. A big scope asked
// alone (no layers) has an index of its own (graph/scope_indexes.py), holding nothing
// else, unless $own_indexes is false (a cluster member where that index is not online
// yet: Store.read asks again without it). Written where a query says
// {{vector_neighbours}}; the "search" variant (vector_neighbours@search) filters in the
// index.
OPTIONAL MATCH (own:Scope {name: $scope})
  WHERE own.vector_index IS NOT NULL AND size($layers) = 0 AND $own_indexes
CALL db.index.vector.queryNodes(coalesce(own.vector_index, $vector_index), $index_fetch,
                                $vector) YIELD node, score
