// maintenance/record_sweep — remember that a sweep ran (for `overview`).
// Params: $now, $scope (string or null), $seconds, $counts (map of transition -> n).
// Returns: nothing.
CREATE (s:Sweep {at: $now, scope: $scope, seconds: $seconds})
SET s += $counts
