// migrations/006_scope_keys — give memories written before scope_key existed their key.
// Params: $keys: list of {scope, key}.
// Returns: nothing.
UNWIND $keys AS k
MATCH (m:Memory {scope: k.scope})
WHERE m.scope_key IS NULL
SET m.scope_key = k.key
