// recall/reinforce — two-tier boosting after a recall: each returned memory's
// stability grows by its tier's boost (direct 0.1, associative 0.03) times the spacing
// factor min(2, 1 + ln(1 + gap days) / ln(31)), so a recall after a long gap counts more
// than one a minute later; access_count and last_accessed follow. Increments are atomic
// (SET x = x + …), so concurrent recalls lose nothing. Then the core promotion check: a
// semantic or episodic memory recalled $promote_accesses times with confidence at least
// $promote_confidence becomes core (it keeps its text; promoted_at says when).
// Only memories of $scope are touched: layers are read-only.
// Params: $scope, $hits (list of {id, boost}), $now (datetime), $promote_accesses (int),
//         $promote_confidence (float).
// Returns: id, stability, access_count, kind — one row per memory reinforced.
{{lock_scope}}
UNWIND $hits AS h
MATCH (m:Memory {id: h.id, scope: $scope})
  USING INDEX SEEK m:Memory(scope, id)
WITH m, h, duration.inSeconds(coalesce(m.last_accessed, m.created_at), $now).seconds / 86400.0
       AS gap
WITH m, h, 1 + log(1 + CASE WHEN gap < 0 THEN 0.0 ELSE gap END) / log(31) AS spacing
SET m.stability = coalesce(m.stability, 1.0)
                  + h.boost * CASE WHEN spacing > 2 THEN 2.0 ELSE spacing END,
    m.access_count = coalesce(m.access_count, 0) + 1,
    m.last_accessed = CASE WHEN m.last_accessed IS NULL OR m.last_accessed < $now THEN $now
                           ELSE m.last_accessed END
WITH m
CALL (m) {
  WITH m
  WHERE m.kind IN ['semantic', 'episodic'] AND m.access_count >= $promote_accesses
    AND coalesce(m.confidence, 0.0) >= $promote_confidence
  SET m.kind = 'core', m.promoted_at = $now
  REMOVE m:Semantic:Episodic
  SET m:Core
}
RETURN m.id AS id, m.stability AS stability, m.access_count AS access_count, m.kind AS kind
