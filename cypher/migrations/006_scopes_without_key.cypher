// migrations/006_scopes_without_key — scopes with memories written before scope_key existed.
// Params: none.
// Returns: scope.
MATCH (m:Memory)
WHERE m.scope_key IS NULL
RETURN DISTINCT m.scope AS scope
