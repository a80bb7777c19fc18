// admin/drop_index — drop one index by name, if it exists.
// Params: $index.
// Returns: nothing.
DROP INDEX $index IF EXISTS
