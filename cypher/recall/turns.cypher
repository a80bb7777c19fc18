// recall/turns — the conversation neighbours of ranked memories: for each, the turn
// before and the turn after it in its session (NEXT edges), when the caller may see them
// (the caller's scope, or a layer's public memories) and they pass the recall's filters.
// Params: $rows (list of {id, scope}), $scope, $layers, $lifecycles, $kinds, $filters,
//         $since, $until, $now, $decay, $temporal, $layer_factor.
// Returns: id, scope, prev, next — each neighbour null or {memory (properties without the
//          embedding), retention, layer}.
UNWIND $rows AS r
MATCH (m:Memory {id: r.id, scope: r.scope})
  USING INDEX m:Memory(scope, id)
CALL (m) {
  OPTIONAL MATCH (x:Memory)-[:NEXT]->(m)
  RETURN x AS p
  LIMIT 1
}
CALL (m) {
  OPTIONAL MATCH (m)-[:NEXT]->(x:Memory)
  RETURN x AS n
  LIMIT 1
}
UNWIND [['prev', p], ['next', n]] AS side
// From here m is the neighbour (the retention fragment reads m).
WITH r, side[0] AS which, side[1] AS x
WITH r, which, CASE WHEN x IS NOT NULL
    AND (x.scope = $scope OR (x.scope IN $layers AND x.visibility = 'public'))
    AND x.lifecycle IN $lifecycles AND ($kinds IS NULL OR x.kind IN $kinds)
    AND all(f IN $filters WHERE x[f.key] IN f.values)
    AND ($since IS NULL OR x.created_at >= $since) AND ($until IS NULL OR x.created_at < $until)
  THEN x END AS m
WITH r, which, m, $decay[m.kind] AS d,
     duration.inSeconds(coalesce(m.last_accessed, m.created_at), $now).seconds / 86400.0
       AS age
WITH r, which, CASE WHEN m IS NULL THEN null ELSE {
       memory: m {.*, embedding: null},
       retention: {{retention}},
       layer: CASE WHEN m.scope = $scope THEN 1.0 ELSE $layer_factor END} END AS found
WITH r, collect([which, found]) AS sides
RETURN r.id AS id, r.scope AS scope,
       [s IN sides WHERE s[0] = 'prev'][0][1] AS prev,
       [s IN sides WHERE s[0] = 'next'][0][1] AS next
