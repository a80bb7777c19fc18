// maintenance/cool — hot -> cold: a memory whose retention fell below $cold_below, or
// that left the active lifecycle, drops its embedding (and its context's), so the vector
// index no longer holds it; keyword, exact text and the graph still find it, and a
// recall that returns it re-embeds it (hot again; its context then reads as the two
// turns' mean). Floors keep core (0.6) and procedural (1.0) hot at the default
// threshold; metadata.protected exempts.
// Params: $scope, $now, $decay, $cold_below, $dry_run, $batch, $leaving (ids a dry run
//         found leaving the active lifecycle in this sweep; [] otherwise).
// Returns: n, ids (dry run only).
MATCH (m:Memory)
WHERE m.tier = 'hot' AND ($scope IS NULL OR m.scope = $scope)
  AND coalesce(m.`meta.protected`, false) <> true
WITH m, $decay[m.kind] AS d,
     duration.inSeconds(coalesce(m.last_accessed, m.created_at), $now).seconds / 86400.0
       AS age
WITH m, {{retention}} AS retention
WHERE retention < $cold_below OR m.lifecycle <> 'active' OR m.id IN $leaving
CALL (m) {
  WITH m WHERE NOT $dry_run
  SET m.tier = 'cold', m.cooled_at = $now, m:Cold
  REMOVE m.embedding, m.context_embedding
} IN TRANSACTIONS OF $batch ROWS
RETURN count(m) AS n, collect(CASE WHEN $dry_run THEN m.id END) AS ids
