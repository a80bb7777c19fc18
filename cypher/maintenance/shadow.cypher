// maintenance/shadow — superseded memories leave default recall: an active memory that
// a memory of its own scope supersedes (written by $now) becomes shadowed once its
// valid_until has passed. metadata.protected exempts it. Batched; a rerun after an
// interruption finds only what is left, so nothing is counted twice.
// Params: $scope (string or null: every scope), $now, $dry_run, $batch.
// Returns: n (memories shadowed, or that would be), ids (dry run only).
MATCH (new:Memory)-[:SUPERSEDES]->(m:Memory)
WHERE m.lifecycle = 'active' AND new.scope = m.scope AND ($scope IS NULL OR m.scope = $scope)
  AND new.created_at <= $now AND (m.valid_until IS NULL OR m.valid_until <= $now)
  AND coalesce(m.`meta.protected`, false) <> true
WITH DISTINCT m
CALL (m) {
  WITH m WHERE NOT $dry_run
  SET m.lifecycle = 'shadowed', m.shadowed_at = $now
} IN TRANSACTIONS OF $batch ROWS
// A dry run also returns the ids, so later steps can count the cascade.
RETURN count(m) AS n, collect(CASE WHEN $dry_run THEN m.id END) AS ids
