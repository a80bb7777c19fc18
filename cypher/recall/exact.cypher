// recall/exact — memories whose text contains the query as a substring, whatever their
// tier (perfect recall: cold and stub memories are found too). Scans the caller's scope
// (range index on scope) and the mounted layers.
// Params: $text, $case_sensitive (bool), $scope, $layers, $lifecycles, $kinds, $filters,
//         $since, $until (datetime or null: written in [since, until)),
//         $temporal, $layer_factor, $decay, $now, $k, $use_weight.
// Returns: as recall/candidates (relevance 1.0 for every match); the score weighs what
//          feedback said of a match (fragments/usefulness), as every other mode does.
MATCH (m:Memory)
WHERE (m.scope = $scope OR (m.scope IN $layers AND m.visibility = 'public'))
  AND m.lifecycle IN $lifecycles AND ($kinds IS NULL OR m.kind IN $kinds)
  AND all(f IN $filters WHERE m[f.key] IN f.values)
  AND ($since IS NULL OR m.created_at >= $since) AND ($until IS NULL OR m.created_at < $until)
  AND CASE WHEN $case_sensitive THEN m.text CONTAINS $text
           ELSE toLower(m.text) CONTAINS toLower($text) END
WITH m, $decay[m.kind] AS d,
     duration.inSeconds(coalesce(m.last_accessed, m.created_at), $now).seconds / 86400.0
       AS age
WITH m,
     {{retention}} AS retention,
     CASE WHEN m.scope = $scope THEN 1.0 ELSE $layer_factor END AS layer
WITH m, retention, layer,
     ((1 - $temporal) + $temporal * retention ^ 0.3) * layer * {{usefulness}} AS score
ORDER BY score DESC, m.created_at DESC, m.id
LIMIT $k
RETURN m.id AS id, m.scope AS scope, {{hit}} AS memory, 1.0 AS relevance,
       null AS cosine, null AS bm25, null AS vector_rank, null AS text_rank, retention, layer, score
