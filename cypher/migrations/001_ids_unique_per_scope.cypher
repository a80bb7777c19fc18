// migrations/001_ids_unique_per_scope — retire the store-wide uniqueness of Memory.id that
// earlier versions installed: an id is unique within its scope (`admin/memory_key`).
// Params: none. Returns: nothing.
DROP CONSTRAINT constraint_unique_Memory_id IF EXISTS
