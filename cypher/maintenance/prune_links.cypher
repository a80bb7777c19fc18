// maintenance/prune_links — dead links go: a synaptic or co-retrieval ASSOCIATED edge
// whose decayed weight (weight * exp(-age / $link_tau days), age since it was made or
// last strengthened) fell below $prune_below is deleted. Manual links are kept. Only
// edges are removed, never memories.
// Params: $scope, $now, $link_tau, $prune_below, $dry_run, $batch.
// Returns: n.
MATCH (a:Memory)-[r:ASSOCIATED]->(:Memory)
WHERE ($scope IS NULL OR a.scope = $scope) AND r.kind <> 'manual'
  AND r.weight * exp(-(duration.inSeconds(coalesce(r.strengthened_at, r.created_at), $now)
                       .seconds / 86400.0) / $link_tau) < $prune_below
CALL (r) {
  WITH r WHERE NOT $dry_run
  DELETE r
} IN TRANSACTIONS OF $batch ROWS
RETURN count(r) AS n
