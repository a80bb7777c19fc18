// admin/memory_key — a memory is named by (scope, id): unique together, so two tenants
// can use the same id and neither can tell that the other did.
// Params: none. Returns: nothing.
CREATE CONSTRAINT memory_scope_id IF NOT EXISTS
FOR (m:Memory) REQUIRE (m.scope, m.id) IS UNIQUE
