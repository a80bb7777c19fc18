// maintenance/consolidate_into — record that semantic memory $id sums up $members
// (CONSOLIDATED_FROM edges). With $confirm (an existing memory covered the group), it is
// confirmed as the write path confirms: confirmation_count + 1, importance at least the
// group's best.
// Params: $id, $members (ids), $confirm (bool), $importance, $now.
// Returns: id, linked (members now consolidated into it).
MATCH (s:Memory {id: $id})
CALL (s) {
  WITH s WHERE $confirm
  SET s.confirmation_count = coalesce(s.confirmation_count, 0) + 1,
      s.last_confirmed = $now,
      s.importance = CASE WHEN coalesce(s.importance, 0.0) < $importance THEN $importance
                          ELSE s.importance END
}
UNWIND $members AS mid
MATCH (m:Memory {id: mid})
MERGE (s)-[r:CONSOLIDATED_FROM]->(m)
  ON CREATE SET r.at = $now
RETURN s.id AS id, count(m) AS linked
