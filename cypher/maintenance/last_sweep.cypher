// maintenance/last_sweep — the most recent sweep (of $scope, or of all scopes).
// Params: $scope (string or null).
// Returns: sweep (map) — no row if none ran.
MATCH (s:Sweep)
WHERE $scope IS NULL OR s.scope = $scope OR s.scope IS NULL
RETURN s {.*} AS sweep
ORDER BY s.ran_at DESC
LIMIT 1
