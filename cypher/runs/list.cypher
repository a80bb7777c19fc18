// runs/list — the runs recorded for $scope (null: every scope), with their state.
// Params: $scope.
// Returns: run, scope, state, started_at.
MATCH (r:ImportRun)
WHERE $scope IS NULL OR r.scope = $scope
RETURN r.id AS run, r.scope AS scope, r.state AS state, r.started_at AS started_at
ORDER BY r.started_at
