// context/top — a scope's active memories by static score: importance 30 %,
// confidence 15 %, recency 25 % (7-day half-life since the last access or creation),
// frequency 30 % (access count, capped at 10). The caller applies type budgets.
// Params: $scope (string), $now (datetime), $limit (int).
// Returns: id, kind, text, score — best first.
MATCH (m:Memory)
WHERE m.scope = $scope AND m.lifecycle = 'active'
WITH m, duration.inSeconds(coalesce(m.last_accessed, m.created_at), $now).seconds / 86400.0
       AS age
WITH m, 0.3 * coalesce(m.importance, 0.5) + 0.15 * coalesce(m.confidence, 0.5)
        + 0.25 * exp(-log(2) * (CASE WHEN age < 0 THEN 0.0 ELSE age END) / 7.0)
        + 0.3 * (CASE WHEN coalesce(m.access_count, 0) > 10 THEN 10
                      ELSE coalesce(m.access_count, 0) END) / 10.0 AS score
ORDER BY score DESC, m.created_at DESC, m.id
LIMIT $limit
RETURN m.id AS id, m.kind AS kind, m.text AS text, score
