// admin/await_indexes — wait until every index has caught up with what was written
// (benchmarks measure reads only after the store has settled).
// Params: $seconds (int).
CALL db.awaitIndexes($seconds)
