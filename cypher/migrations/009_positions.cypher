// migrations/009_positions — gives the turns of a store written before positions existed
// their place in their session's conversation (their `metadata.turn`, which the
// importers wrote, and the session their NEXT edges name, or their only session), in
// batches; idempotent. migrations/010_session_ends then gives the sessions their ends.
// Params: none.
// Returns: nothing.
MATCH (m:Memory)-[:IN_SESSION]->(s:Session)
WHERE m.position IS NULL AND m.`meta.turn` IS NOT NULL AND m.version_of IS NULL
  AND (EXISTS { (m)-[:NEXT {session: s.id}]-(:Memory) }
       OR COUNT { (m)-[:IN_SESSION]->(:Session) } = 1)
CALL (m, s) {
  SET m.position = m.`meta.turn`, m.session = s.id
} IN TRANSACTIONS OF 1000 ROWS
