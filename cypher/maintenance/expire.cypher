// maintenance/expire — TTL: an active memory whose valid_until has passed (and that no
// memory supersedes: those are shadowed instead) is archived. metadata.protected exempts.
// Params: $scope (string or null), $now, $dry_run, $batch.
// Returns: n, ids (dry run only).
MATCH (m:Memory)
WHERE m.lifecycle = 'active' AND ($scope IS NULL OR m.scope = $scope)
  AND m.valid_until IS NOT NULL AND m.valid_until <= $now
  AND coalesce(m.`meta.protected`, false) <> true
  AND NOT EXISTS { MATCH (:Memory)-[:SUPERSEDES]->(m) }
CALL (m) {
  WITH m WHERE NOT $dry_run
  SET m.lifecycle = 'archived', m.archived_at = $now, m.archive_reason = 'ttl'
} IN TRANSACTIONS OF $batch ROWS
// A dry run also returns the ids, so later steps can count the cascade.
RETURN count(m) AS n, collect(CASE WHEN $dry_run THEN m.id END) AS ids
