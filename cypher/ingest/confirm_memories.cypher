// ingest/confirm_memories — existing memories that new records said again:
// confirmation_count grows, confidence rises by the given delta (capped at 0.95),
// importance never drops, tags are merged. Increments are atomic, so concurrent writers
// lose nothing. The scope's node is locked first, as by every writer (fragments/lock_scope),
// and its embedding model read under the lock: the dedup that chose these compared
// vectors, so the writer refuses a scope of another model (fragments/scope_lock).
// Params: $scope, $rows: list of {id, count (int), delta (float), importance (float),
//         tags (list of string), at (datetime)}, $legacy (the model of a scope that
//         recorded none).
// Returns: id, confidence, confirmation_count, scope, model (the scope's).
OPTIONAL MATCH (s:Scope {name: $scope})
SET s.locked_at = datetime()
WITH coalesce(s.model, $legacy) AS model
UNWIND $rows AS c
MATCH (m:Memory {id: c.id, scope: $scope})
  USING INDEX SEEK m:Memory(scope, id)
SET m.confirmation_count = coalesce(m.confirmation_count, 0) + c.count,
    m.confidence = CASE WHEN coalesce(m.confidence, 0.0) + c.delta > 0.95 THEN 0.95
                        ELSE coalesce(m.confidence, 0.0) + c.delta END,
    m.importance = CASE WHEN c.importance > coalesce(m.importance, 0.0) THEN c.importance
                        ELSE m.importance END,
    m.tags = coalesce(m.tags, []) + [t IN c.tags WHERE NOT t IN coalesce(m.tags, [])],
    m.last_confirmed = c.at
RETURN m.id AS id, m.confidence AS confidence, m.confirmation_count AS confirmation_count,
       $scope AS scope, model
