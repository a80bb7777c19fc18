// maintenance/consolidate_into — record that each semantic memory sums up its group's
// members (CONSOLIDATED_FROM edges). Where an existing memory covered the group
// (confirm), it is confirmed as the write path confirms: confirmation_count + 1,
// importance at least the group's best.
// Params: $groups (list of {id, scope, members (ids), confirm (bool), importance}), $now.
// Returns: id, linked (members now consolidated into it) — one row per group.
UNWIND $groups AS g
MATCH (s:Memory {id: g.id, scope: g.scope})
  USING INDEX SEEK s:Memory(scope, id)
CALL (s, g) {
  WITH s, g WHERE g.confirm
  SET s.confirmation_count = coalesce(s.confirmation_count, 0) + 1,
      s.last_confirmed = $now,
      s.importance = CASE WHEN coalesce(s.importance, 0.0) < g.importance THEN g.importance
                          ELSE s.importance END
}
CALL (s, g) {
  UNWIND g.members AS mid
  MATCH (m:Memory {id: mid, scope: g.scope})
    USING INDEX SEEK m:Memory(scope, id)
  MERGE (s)-[r:CONSOLIDATED_FROM]->(m)
    ON CREATE SET r.at = $now
  RETURN count(m) AS linked
}
RETURN s.id AS id, linked
