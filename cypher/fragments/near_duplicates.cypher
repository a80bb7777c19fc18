// fragments/near_duplicates — for each new text of $lists.rows, the active memories of
// the same scope and kind at least $min_score similar ((1 + cosine) / 2, as the index and
// vector.similarity.cosine report it), one row each: r (the new text's row), node, score,
// sessions (node's Session ids). A scope of fewer than $scan_below memories is compared
// exactly, memory by memory: other scopes holding the same texts would fill the index's
// $fetch nearest (5.26's index cannot filter), and what is a duplicate must not depend on
// other scopes. A bigger scope asks the index for $fetch neighbours per row: its own
// index when it has one (graph/scope_indexes.py), else the shared one ($index); each
// neighbour of the scope and kind is then scored exactly (the index's scores are
// quantized: docs/decisions.md, "Similarities are exact").
CALL () {
  MATCH (n:Memory)
  WHERE n.scope = $scope
  WITH n LIMIT $scan_below
  RETURN count(n) < $scan_below AS scan
}
OPTIONAL MATCH (own:Scope {name: $scope})
WITH scan, coalesce(own.vector_index, $index) AS index
UNWIND $lists.rows AS r
CALL (r, scan, index) {
  WITH 1 AS on
  WHERE NOT scan
  CALL db.index.vector.queryNodes(index, $fetch, r.embedding) YIELD node
  WITH node
  WHERE node.scope = $scope AND node.kind = r.kind AND node.lifecycle = 'active'
  RETURN node, vector.similarity.cosine(node.embedding, r.embedding) AS score
  UNION ALL
  WITH 1 AS on
  WHERE scan
  MATCH (node:Memory {scope: $scope})
  WHERE node.kind = r.kind AND node.lifecycle = 'active' AND node.embedding IS NOT NULL
  RETURN node, vector.similarity.cosine(node.embedding, r.embedding) AS score
}
WITH r, node, score
WHERE score >= $min_score
OPTIONAL MATCH (node)-[:IN_SESSION]->(s:Session)
WITH r, node, score, collect(s.id) AS sessions
