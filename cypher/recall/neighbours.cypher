// recall/neighbours — the turn before and the turn after each of some ranked memories in
// its session (NEXT edges), when recall may return them (fragments/visible), with what
// ranking reads of them (fragments/facts): conversation order (graphmem/read/rank.py)
// lifts a memory by its neighbours and brings in the turn after a strong hit.
// Params: $rows (list of {id, scope}), $scope, $layers, $lifecycles, $kinds, $filters,
//         $since, $until.
// Returns: id, scope, prev, next — each null or fragments/facts.
UNWIND $rows AS r
MATCH (t:Memory {id: r.id, scope: r.scope})
  USING INDEX t:Memory(scope, id)
OPTIONAL CALL (t) {
  MATCH (n:Memory)-[:NEXT]->(t)
  WHERE {{visible}}
  WITH n AS m
  RETURN {{facts}} AS prev
  LIMIT 1
}
OPTIONAL CALL (t) {
  MATCH (t)-[:NEXT]->(n:Memory)
  WHERE {{visible}}
  WITH n AS m
  RETURN {{facts}} AS next
  LIMIT 1
}
RETURN r.id AS id, r.scope AS scope, prev, next
