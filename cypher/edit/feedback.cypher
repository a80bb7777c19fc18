// edit/feedback — what an agent says of a memory it was given: used
// (echo) raises importance by $importance and confidence by $confidence, unused (fizzle)
// lowers them (negative deltas). Importance stays in [0, 1], confidence in [0.05, 0.95].
// Params: $id, $scope, $importance (delta), $confidence (delta), $used (bool), $now.
// Returns: id, importance, confidence, used_count, unused_count (no row: not found).
// It takes no scope lock (docs/decisions.md, "Every writer of a scope locks the scope
// first"): it locks one memory and nothing after it, so it can be in no deadlock, and it
// need not wait for every writer of the scope, only one writing this memory.
MATCH (m:Memory {id: $id, scope: $scope})
  USING INDEX SEEK m:Memory(scope, id)
WITH m, coalesce(m.importance, 0.5) + $importance AS imp,
     coalesce(m.confidence, 0.5) + $confidence AS conf
SET m.importance = CASE WHEN imp < 0 THEN 0.0 WHEN imp > 1 THEN 1.0 ELSE imp END,
    m.confidence = CASE WHEN conf < 0.05 THEN 0.05 WHEN conf > 0.95 THEN 0.95 ELSE conf END,
    m.used_count = coalesce(m.used_count, 0) + CASE WHEN $used THEN 1 ELSE 0 END,
    m.unused_count = coalesce(m.unused_count, 0) + CASE WHEN $used THEN 0 ELSE 1 END,
    m.feedback_at = $now
RETURN m.id AS id, m.importance AS importance, m.confidence AS confidence,
       m.used_count AS used_count, m.unused_count AS unused_count
