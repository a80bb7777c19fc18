// fragments/neighbours — the turn before and the turn after memory t in its session (NEXT
// edges), when the caller may see them (the caller's scope, or a layer's public memories)
// and they pass the recall's filters: prev and next, each null or {memory ({{hit}}),
// retention, layer}. Written where a query says {{neighbours}}; needs t and the recall's
// $scope, $layers, $lifecycles, $kinds, $filters, $since, $until, $now, $decay,
// $layer_factor.
CALL (t) {
  OPTIONAL MATCH (x:Memory)-[:NEXT]->(t)
  RETURN x AS p
  LIMIT 1
}
CALL (t) {
  OPTIONAL MATCH (t)-[:NEXT]->(x:Memory)
  RETURN x AS n
  LIMIT 1
}
CALL (p, n) {
  UNWIND [['prev', p], ['next', n]] AS side
  // From here m is the neighbour (the retention fragment reads m).
  WITH side[0] AS which, side[1] AS x
  WITH which, CASE WHEN x IS NOT NULL
      AND (x.scope = $scope OR (x.scope IN $layers AND x.visibility = 'public'))
      AND x.lifecycle IN $lifecycles AND ($kinds IS NULL OR x.kind IN $kinds)
      AND all(f IN $filters WHERE x[f.key] IN f.values)
      AND ($since IS NULL OR x.created_at >= $since)
      AND ($until IS NULL OR x.created_at < $until)
    THEN x END AS m
  WITH which, m, $decay[m.kind] AS d,
       duration.inSeconds(coalesce(m.last_accessed, m.created_at), $now).seconds / 86400.0
         AS age
  WITH which, CASE WHEN m IS NULL THEN null ELSE {
         memory: {{hit}},
         retention: {{retention}},
         layer: CASE WHEN m.scope = $scope THEN 1.0 ELSE $layer_factor END} END AS found
  WITH collect([which, found]) AS sides
  RETURN [s IN sides WHERE s[0] = 'prev'][0][1] AS prev,
         [s IN sides WHERE s[0] = 'next'][0][1] AS next
}
