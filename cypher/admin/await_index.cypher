// admin/await_index — wait until one index is ONLINE (fails after $seconds).
// Params: $index, $seconds (int).
// Returns: nothing.
CALL db.awaitIndex($index, $seconds)
