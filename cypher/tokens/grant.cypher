// tokens/grant — what a live (unrevoked) token may do: read at every request, so a
// revocation holds from the next request on, on every replica.
// Params: $id.
// Returns: hash, name, scopes, read_only — no row for an unknown or revoked token.
MATCH (t:Token {id: $id})
WHERE t.revoked_at IS NULL
RETURN t.hash AS hash, t.name AS name, t.scopes AS scopes, t.read_only AS read_only
