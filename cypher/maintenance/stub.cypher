// maintenance/stub — cold -> stub: a cold memory whose retention fell below $stub_below
// (or that is archived) gains a short extractive summary (its first sentence, at most
// $summary_chars). The original text always stays.
// Params: $scope, $now, $decay, $stub_below, $summary_chars, $dry_run, $batch; for a dry
//         run, $cooling (ids going cold in this sweep) and $archiving (ids being
//         archived in it), [] otherwise.
// Returns: n.
MATCH (m:Memory)
WHERE (m.tier = 'cold' OR m.id IN $cooling) AND ($scope IS NULL OR m.scope = $scope)
  AND coalesce(m.`meta.protected`, false) <> true
WITH m, $decay[m.kind] AS d,
     duration.inSeconds(coalesce(m.last_accessed, m.created_at), $now).seconds / 86400.0
       AS age
WITH m, {{retention}} AS retention
WHERE retention < $stub_below OR m.lifecycle = 'archived' OR m.id IN $archiving
CALL (m) {
  WITH m, head(split(m.text, '. ')) AS first
  WHERE NOT $dry_run
  REMOVE m:Cold
  SET m:Stub, m.tier = 'stub', m.stubbed_at = $now,
      m.summary = CASE WHEN size(first) <= $summary_chars THEN first
                       ELSE left(first, $summary_chars - 1) + '…' END
} IN TRANSACTIONS OF $batch ROWS
RETURN count(m) AS n
