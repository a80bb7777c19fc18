// migrations/010_session_ends — gives each session of a store written before sessions kept
// their ends how many positions it has handed out and its last turn (as
// fragments/chain_turns keeps them), so a turn appended by arrival joins its chain; in
// batches, idempotent.
// Params: none.
// Returns: nothing.
MATCH (s:Session)
WHERE s.last IS NULL
CALL (s) {
  MATCH (m:Memory)-[:IN_SESSION]->(s)
  WHERE m.session = s.id AND m.position IS NOT NULL AND m.version_of IS NULL
  WITH m ORDER BY m.position DESC, m.created_at DESC, m.id DESC
  LIMIT 1
  SET s.turns = m.position + 1, s.last = m.id
} IN TRANSACTIONS OF 1000 ROWS
