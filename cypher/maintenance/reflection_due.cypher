// maintenance/reflection_due — scopes where the importance written since the last
// reflection (memories of users and agents, not of consolidation or reflection) adds up
// to $threshold, with the recurring themes of those memories: their most mentioned
// entities, most used tags, and how many sessions they span; private when any of them is
// (a reflection names what they mention).
// Params: $scope (string or null), $now, $threshold.
// Returns: scope, total, n, since, themes, tags (lists of {name, n}), sessions, visibility.
MATCH (m:Memory)
WHERE $scope IS NULL OR m.scope = $scope
WITH m.scope AS scope, max(CASE WHEN m.kind = 'reflection' THEN m.created_at END) AS last
CALL (scope, last) {
  MATCH (m:Memory {scope: scope})
  WHERE (last IS NULL OR m.created_at > last) AND m.created_at <= $now
    AND NOT coalesce(m.source, '') IN ['reflection', 'consolidation']
  RETURN sum(coalesce(m.importance, 0.5)) AS total, count(m) AS n,
         min(m.created_at) AS since, collect(m) AS ms
}
WITH scope, total, n, since, ms
WHERE total >= $threshold
CALL (ms) {
  UNWIND ms AS m
  MATCH (m)-[:MENTIONS]->(e:Entity)
  WITH e, count(*) AS c
  ORDER BY c DESC, e.name
  LIMIT 5
  RETURN collect({name: e.name, n: c}) AS themes
}
CALL (ms) {
  UNWIND ms AS m
  UNWIND coalesce(m.tags, []) AS t
  WITH t, count(*) AS c
  ORDER BY c DESC, t
  LIMIT 5
  RETURN collect({name: t, n: c}) AS tags
}
CALL (ms) {
  UNWIND ms AS m
  OPTIONAL MATCH (m)-[:IN_SESSION]->(s:Session)
  RETURN count(DISTINCT s) AS sessions
}
RETURN scope, total, n, since, themes, tags, sessions,
       CASE WHEN any(m IN ms WHERE m.visibility = 'private') THEN 'private'
            ELSE 'public' END AS visibility
ORDER BY scope
