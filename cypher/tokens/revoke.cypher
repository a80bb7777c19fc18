// tokens/revoke — revoke a live token (from the next request on).
// Params: $id, $now (datetime).
// Returns: id — no row for an unknown or already revoked token.
MATCH (t:Token {id: $id})
WHERE t.revoked_at IS NULL
SET t.revoked_at = $now
RETURN t.id AS id
