// runs/list — the runs recorded for $scope (null: every scope), with their state and
// whether their lease has lapsed (no sign of life from the writer for the lease's
// length; a run recorded before leases lapses $lease seconds after it started).
// Params: $scope, $lease.
// Returns: run, scope, state, started_at, lapsed.
MATCH (r:ImportRun)
WHERE $scope IS NULL OR r.scope = $scope
RETURN r.id AS run, r.scope AS scope, r.state AS state, r.started_at AS started_at,
       coalesce(r.lease_until, r.started_at + duration({seconds: $lease})) < datetime()
         AS lapsed
ORDER BY r.started_at
