// fragments/append_turns — memories written into a session without a position take the
// next positions of that session, in the order given, and join the end of its NEXT
// chain: O(1) per turn, whatever the session's length (the session keeps how many
// positions it has handed out, `turns`, and its last turn, `last`). The session is
// locked before its count is read, so two writers never take one position and none is
// skipped (a write that rolls back gives its positions back with it). A memory that
// already has a place (written before, now rewritten) keeps it.
// (docs/decisions.md, "A session's order is the order of arrival")
// Reads $scope, $lists.arrivals: list of {session (Session id), ids (memory ids, in
// order)}.
UNWIND $lists.arrivals AS r
MATCH (s:Session {id: r.session})
// The right-hand side reads what it writes, so Cypher locks the node before reading it.
SET s.turns = coalesce(s.turns, 0)
WITH s, r
CALL (s, r) {
  UNWIND range(0, size(r.ids) - 1) AS i
  MATCH (m:Memory {scope: $scope, id: r.ids[i]})
    USING INDEX SEEK m:Memory(scope, id)
  WITH i, m WHERE m.position IS NULL
  WITH m ORDER BY i
  RETURN collect(m) AS new
}
OPTIONAL CALL (s) {
  MATCH (tail:Memory {scope: $scope, id: s.last})
    USING INDEX SEEK tail:Memory(scope, id)
  RETURN tail
}
CALL (s, new) {
  UNWIND range(0, size(new) - 1) AS i
  WITH new[i] AS m, s.turns + i AS position
  SET m.position = position, m.session = s.id
}
WITH s, new, CASE WHEN size(new) = 0 THEN [] ELSE [x IN [tail] WHERE x IS NOT NULL] + new END
  AS chain
CALL (s, chain) {
  UNWIND range(0, size(chain) - 2) AS i
  WITH s, chain[i] AS a, chain[i + 1] AS b
  CREATE (a)-[:NEXT {session: s.id}]->(b)
}
SET s.turns = s.turns + size(new),
    s.last = CASE WHEN size(new) = 0 THEN s.last ELSE last(new).id END
