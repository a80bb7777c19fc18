// tokens/live_count — how many tokens are live (the service refuses to listen beyond
// loopback without one).
// Params: none.
// Returns: live (int).
MATCH (t:Token)
WHERE t.revoked_at IS NULL
RETURN count(t) AS live
