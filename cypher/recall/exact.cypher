// recall/exact — memories whose text contains the query as a substring, whatever their
// tier (perfect recall: cold and stub memories are found too), with the facts ranking
// reads (graphmem/read/rank.py: every match is equally relevant). Scans the caller's
// scope (range index on scope) and the mounted layers, and returns at most $k of the
// newest matches, with their neighbours in their sessions (fragments/neighbours).
// Params: $text, $case_sensitive (bool), $scope, $layers, $lifecycles, $kinds, $filters,
//         $since, $until (datetime or null: written in [since, until)), $k, $turns.
// Returns: memory (fragments/facts), ranks ([{list: 'exact'}]), before, after — newest
//          first.
MATCH (n:Memory)
  USING INDEX SEEK n:Memory(scope)  // never a scan of every scope's memories by time
WHERE n.scope IN [$scope] + $layers AND {{visible}}
  AND CASE WHEN $case_sensitive THEN n.text CONTAINS $text
           ELSE toLower(n.text) CONTAINS toLower($text) END
WITH n AS m
ORDER BY m.created_at DESC, m.id
LIMIT $k
OPTIONAL CALL (m) {
  {{neighbours}}
}
RETURN {{facts}} AS memory, [{list: 'exact', rank: null, score: null}] AS ranks, before, after
