// recall/hits — what recall shows of the memories it ranked (fragments/facts), and with
// $turns the turn before and the turn after each in its session (NEXT edges), when
// recall may return them (fragments/visible): conversation order (graphmem/read/turns.py)
// lifts a memory by its neighbours and brings in the turn after a strong hit.
// Params: $lists: {rows (list of {id, scope}): in a map, as Neo4j keys a plan on a
//         list's size}, $turns (bool), $scope, $layers, $lifecycles,
//         $kinds, $filters, $since, $until.
// Returns: id, scope, memory, prev, next — prev and next null or fragments/facts.
UNWIND $lists.rows AS r
MATCH (m:Memory {id: r.id, scope: r.scope})
  USING INDEX m:Memory(scope, id)
OPTIONAL CALL (m) {
  MATCH (n:Memory)-[:NEXT]->(m)
  WHERE $turns AND m.position IS NOT NULL AND {{visible}}
  RETURN n AS p
  LIMIT 1
}
OPTIONAL CALL (m) {
  MATCH (m)-[:NEXT]->(n:Memory)
  WHERE $turns AND m.position IS NOT NULL AND {{visible}}
  RETURN n AS x
  LIMIT 1
}
WITH r, {{facts}} AS memory, p, x
CALL (p) {
  WITH p AS m
  RETURN CASE WHEN m IS NULL THEN null ELSE {{facts}} END AS prev
}
CALL (x) {
  WITH x AS m
  RETURN CASE WHEN m IS NULL THEN null ELSE {{facts}} END AS next
}
RETURN r.id AS id, r.scope AS scope, memory, prev, next
