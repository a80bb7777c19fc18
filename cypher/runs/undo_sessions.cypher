// runs/undo_sessions — after runs/undo_memories: a session an undone run's memories were
// in goes when none is left; otherwise it ends at its last remaining turn again (the
// positions after it are handed out again), and starts at its earliest memory.
// Params: $run, $scope.
// Returns: settled.
MATCH (s:Session {scope: $scope})
WHERE s.undo = $run
CALL (s) {
  OPTIONAL CALL (s) {
    MATCH (m:Memory)-[:IN_SESSION]->(s)
    WITH m ORDER BY m.position DESC
    RETURN collect(m) AS members
  }
  REMOVE s.undo
  SET s.last = CASE WHEN size(members) = 0 OR members[0].position IS NULL THEN null
                    ELSE members[0].id END,
      s.turns = CASE WHEN size(members) = 0 OR members[0].position IS NULL THEN 0
                     ELSE members[0].position + 1 END,
      s.started_at = CASE WHEN size(members) = 0 THEN s.started_at
                          ELSE reduce(a = members[0].created_at, x IN members |
                                      CASE WHEN x.created_at < a THEN x.created_at ELSE a END)
                     END
  WITH s, members WHERE size(members) = 0
  DETACH DELETE s
} IN TRANSACTIONS OF 100 ROWS
RETURN count(*) AS settled
