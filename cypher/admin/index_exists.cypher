// admin/index_exists — one row if an index of this name exists (in any state).
// Params: $index.
// Returns: name.
SHOW INDEXES
YIELD name
WHERE name = $index
RETURN name
