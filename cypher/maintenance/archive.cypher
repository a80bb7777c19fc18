// maintenance/archive — opt-in archiving of active memories older than $max_age_days
// or with retention below $archive_below (either null: that rule is off). Core and
// procedural memories and metadata.protected are exempt. Archived memories stay
// findable by id, exact text and --include-archived.
// Params: $scope, $now, $decay, $max_age_days (float or null), $archive_below (float or
//         null), $dry_run, $batch.
// Returns: n, ids (dry run only).
MATCH (m:Memory)
WHERE m.lifecycle = 'active' AND ($scope IS NULL OR m.scope = $scope)
  AND NOT m.kind IN ['core', 'procedural'] AND coalesce(m.`meta.protected`, false) <> true
WITH m, $decay[m.kind] AS d,
     duration.inSeconds(coalesce(m.last_accessed, m.created_at), $now).seconds / 86400.0
       AS age,
     duration.inSeconds(m.created_at, $now).seconds / 86400.0 AS lived
WITH m, lived, {{retention}} AS retention
WHERE ($max_age_days IS NOT NULL AND lived > $max_age_days)
   OR ($archive_below IS NOT NULL AND retention < $archive_below)
CALL (m, retention) {
  WITH m, retention WHERE NOT $dry_run
  SET m.lifecycle = 'archived', m.archived_at = $now,
      m.archive_reason = CASE WHEN $archive_below IS NOT NULL AND retention < $archive_below
                              THEN 'retention' ELSE 'age' END
} IN TRANSACTIONS OF $batch ROWS
// A dry run also returns the ids, so later steps can count the cascade.
RETURN count(m) AS n, collect(CASE WHEN $dry_run THEN m.id END) AS ids
