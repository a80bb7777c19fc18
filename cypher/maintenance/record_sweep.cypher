// maintenance/record_sweep — remember that a sweep ran (for `overview`): `at` is the
// sweep's clock (maybe simulated), `ran_at` the server's, which orders the records.
// Params: $now, $scope (string or null), $seconds, $counts (map of transition -> n).
// Returns: nothing.
CREATE (s:Sweep {at: $now, ran_at: datetime(), scope: $scope, seconds: $seconds})
SET s += $counts
