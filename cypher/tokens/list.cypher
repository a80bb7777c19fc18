// tokens/list — every token, oldest first, without its hash.
// Params: none.
// Returns: id, name, scopes, read_only, created_at, revoked_at.
MATCH (t:Token)
RETURN t.id AS id, t.name AS name, t.scopes AS scopes, t.read_only AS read_only,
       t.created_at AS created_at, t.revoked_at AS revoked_at
ORDER BY created_at, id
